import * as z from "zod/mini";
import { NON_NEGATIVE_INT_SCHEMA, POSITIVE_INT_SCHEMA } from "./option-schemas.js";

/**
 * How providers say a request does not fit the model's context window, in lower case: phrases
 * of their error messages and error codes. Matched with `includes` on a bounded prefix of the
 * text, never a regular expression.
 */
export const CONTEXT_OVERFLOW_PHRASES = /* @__PURE__ */ Object.freeze({
  /** Anthropic: `prompt is too long: 210000 tokens > 200000 maximum`, and input + `max_tokens` over the window. */
  anthropic: ["prompt is too long", "exceed context limit"],
  /** OpenAI: the `context_length_exceeded` code, Chat Completions' and the Responses API's messages. */
  openai: ["context_length_exceeded", "maximum context length", "exceeds the context window"],
  /** Gemini: `The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).` */
  gemini: ["exceeds the maximum number of tokens allowed"],
} as const);

/** Characters of one error text looked at: provider messages say it in their first sentence. */
const MAX_SCANNED_CHARS = 4_096;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** A property read that cannot throw (a getter on a hostile error object). */
function read(value: unknown, key: string): unknown {
  if (!isRecord(value)) return undefined;
  try {
    return value[key];
  } catch {
    return undefined;
  }
}

/** The HTTP status an error carries: `status` (Anthropic's and OpenAI's SDKs) or `statusCode` (the AI SDK's). */
export function errorStatus(error: unknown): number | undefined {
  const status = read(error, "status") ?? read(error, "statusCode");
  return typeof status === "number" ? status : undefined;
}

/**
 * The texts an API error carries, lower-cased and bounded: its message, the API's own message
 * and code (`error.error.message`, `code`, `error.code`) and the AI SDK's `responseBody`.
 */
export function errorTexts(error: unknown): string[] {
  const body = read(error, "error");
  const candidates = [
    read(error, "message"),
    read(error, "apiMessage"),
    read(error, "code"),
    read(error, "responseBody"),
    read(body, "message"),
    read(body, "code"),
    read(read(body, "error"), "message"),
    read(read(body, "error"), "code"),
  ];
  const texts: string[] = [];
  for (const candidate of candidates) {
    if (typeof candidate === "string" && candidate !== "") {
      texts.push(candidate.slice(0, MAX_SCANNED_CHARS).toLowerCase());
    }
  }
  return texts;
}

/** Whether any of the texts holds one of the phrases. */
export function mentionsAny(texts: readonly string[], phrases: readonly string[]): boolean {
  return texts.some((text) => phrases.some((phrase) => text.includes(phrase)));
}

/**
 * Whether an error is a provider's refusal of a request for its context length, as Anthropic,
 * OpenAI and Gemini word it (through their SDKs or the AI SDK's `APICallError`): a 400 (or an error
 * without a status, as a streamed `response.failed` is) whose message or code says so.
 */
export function isContextOverflowError(error: unknown): boolean {
  const status = errorStatus(error);
  if (status !== undefined && status !== 400) return false;
  return mentionsAny(errorTexts(error), [
    ...CONTEXT_OVERFLOW_PHRASES.anthropic,
    ...CONTEXT_OVERFLOW_PHRASES.openai,
    ...CONTEXT_OVERFLOW_PHRASES.gemini,
  ]);
}

/** What a provider's refusal for length says of the window, in tokens. */
export interface ContextOverflowRefusal {
  /** The most input tokens the model takes, as the refusal names it (its window less the reply's room). */
  windowTokens: number;
  /** The tokens of the refused request, when the refusal says. */
  requestTokens?: number;
}

/** Schema of {@link ContextOverflowRefusal}: whole numbers of tokens, the window more than 0. */
export const ContextOverflowRefusalSchema: z.ZodMiniType<ContextOverflowRefusal> = z.strictObject(
  {
    windowTokens: POSITIVE_INT_SCHEMA,
    requestTokens: z.exactOptional(NON_NEGATIVE_INT_SCHEMA),
  },
  { error: "must be an object" },
);

/** The whole number written at `from` (digits only), and where it ends; `undefined` when none is. */
function numberAt(text: string, from: number): { value: number; end: number } | undefined {
  let end = from;
  while (end < text.length && text[end]! >= "0" && text[end]! <= "9") end += 1;
  if (end === from || end - from > 15) return undefined;
  return { value: Number(text.slice(from, end)), end };
}

/** The whole number written just before `at` (digits only). */
function numberBefore(text: string, at: number): number | undefined {
  let start = at;
  while (start > 0 && text[start - 1]! >= "0" && text[start - 1]! <= "9") start -= 1;
  return numberAt(text, start)?.value;
}

/** Gemini's wording: the request's count after the first, the window after the second. */
const GEMINI_COUNT = "input token count (";
const GEMINI_ALLOWED = "maximum number of tokens allowed (";

/** `A + B > C` at `from`: the input `A`, the reply's room `B`, the window `C`. */
function sumAbove(text: string, from: number): ContextOverflowRefusal | undefined {
  const input = numberAt(text, from);
  if (input === undefined || !text.startsWith(" + ", input.end)) return undefined;
  const reply = numberAt(text, input.end + 3);
  if (reply === undefined || !text.startsWith(" > ", reply.end)) return undefined;
  const window = numberAt(text, reply.end + 3);
  if (window === undefined || window.value <= reply.value) return undefined;
  return { windowTokens: window.value - reply.value, requestTokens: input.value };
}

/**
 * The window one refusal text names, as Anthropic writes it (`prompt is too long: 210000 tokens
 * > 200000 maximum`; `input length and max_tokens exceed context limit: 190000 + 20000 >
 * 200000`) or OpenAI (`maximum context length is 128000 tokens … resulted in 130000 tokens`;
 * `(130000 > 128000 tokens)`) or Gemini (`The input token count (1234567) exceeds the maximum
 * number of tokens allowed (1048576)`). A linear scan, no regular expression.
 */
function refusalIn(text: string): ContextOverflowRefusal | undefined {
  const allowed = text.indexOf(GEMINI_ALLOWED);
  if (allowed >= 0) {
    const window = numberAt(text, allowed + GEMINI_ALLOWED.length);
    const count = text.indexOf(GEMINI_COUNT);
    const request = count < 0 ? undefined : numberAt(text, count + GEMINI_COUNT.length);
    if (window !== undefined)
      return {
        windowTokens: window.value,
        ...(request === undefined ? {} : { requestTokens: request.value }),
      };
  }
  const above = text.indexOf(" tokens > ");
  if (above >= 0) {
    const window = numberAt(text, above + " tokens > ".length);
    if (window !== undefined && text.startsWith(" maximum", window.end)) {
      const requestTokens = numberBefore(text, above);
      return {
        windowTokens: window.value,
        ...(requestTokens === undefined ? {} : { requestTokens }),
      };
    }
  }
  const limit = text.indexOf("exceed context limit: ");
  if (limit >= 0) {
    const refusal = sumAbove(text, limit + "exceed context limit: ".length);
    if (refusal !== undefined) return refusal;
  }
  const maximum = text.indexOf("maximum context length is ");
  if (maximum >= 0) {
    const window = numberAt(text, maximum + "maximum context length is ".length);
    if (window !== undefined) {
      const resulted = text.indexOf("resulted in ");
      const request = resulted < 0 ? undefined : numberAt(text, resulted + "resulted in ".length);
      return {
        windowTokens: window.value,
        ...(request === undefined ? {} : { requestTokens: request.value }),
      };
    }
  }
  const over = text.indexOf(" > ");
  if (over >= 0) {
    const window = numberAt(text, over + 3);
    const requestTokens = numberBefore(text, over);
    if (
      window !== undefined &&
      requestTokens !== undefined &&
      text.startsWith(" tokens", window.end)
    )
      return { windowTokens: window.value, requestTokens };
  }
  return undefined;
}

/**
 * The window a provider's refusal for length names (an error `isContextOverflowError`, or an
 * adapter's test, took for one), so a session configured with a larger window can take it
 * (`session.recordContextOverflow`); `undefined` when it names none.
 *
 * @example
 * contextOverflowOf(error); // { windowTokens: 200000, requestTokens: 210000 }
 */
export function contextOverflowOf(error: unknown): ContextOverflowRefusal | undefined {
  for (const text of errorTexts(error)) {
    const refusal = refusalIn(text);
    if (refusal !== undefined && refusal.windowTokens > 0) return refusal;
  }
  return undefined;
}
