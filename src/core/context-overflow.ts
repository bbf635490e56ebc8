/**
 * How providers say a request does not fit the model's context window, in lower case: phrases
 * of their error messages and error codes. Matched with `includes` on a bounded prefix of the
 * text, never a regular expression.
 */
export const CONTEXT_OVERFLOW_PHRASES = Object.freeze({
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
