import {
  type Content,
  FunctionCallingConfigMode,
  type GenerateContentConfig,
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
} from "@google/genai";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  assertSummaryFinished,
  type LlmClient,
  type LlmReply,
  type LlmRequest,
  SUMMARY_CALLED_A_TOOL,
  SUMMARY_DECLINED,
} from "../core/llm-client.js";
import { NON_EMPTY_STRING_SCHEMA, POSITIVE_INT_SCHEMA } from "../core/option-schemas.js";
import { toGeminiContents } from "./contents-out.js";
import { compactionUsageFromGemini, type GeminiUsageLike } from "./usage.js";

/** The client shape {@link GeminiLlmClient} needs: `models.generateContent` (a `GoogleGenAI` fits). */
export interface GeminiModelsClient {
  models: {
    generateContent(params: GenerateContentParameters): PromiseLike<GenerateContentResponse>;
  };
}

/**
 * The agent's own request without its contents: the `model` and `config` (system instruction,
 * tools, thinking) its loop passes to `generateContent` with `contents: toGeminiContents(…)`.
 */
export type GeminiRequestDescription = Omit<GenerateContentParameters, "contents">;

/** Options of {@link GeminiLlmClient}. */
export interface GeminiLlmClientOptions {
  /** The client. @default new GoogleGenAI({}) (reads GEMINI_API_KEY or GOOGLE_API_KEY) */
  client?: GeminiModelsClient;
  /** The model that writes transcript summaries; required unless `request` is given. @default request.model */
  model?: string;
  /**
   * The agent's own request (its `model` and `config`). With it the client takes the
   * conversation: a summary request is the agent's contents with the instruction appended as
   * the final user text, and its model, system instruction, tools and thinking, so its prefix is
   * read from Gemini's implicit cache. Without it every summary is a transcript. @default none
   */
  request?: GeminiRequestDescription;
  /** `maxOutputTokens` when the request does not set `maxTokens`. @default 2048 */
  maxOutputTokens?: number;
  /** More `config` for every request (`temperature`, `httpOptions`, …); `request.config` wins. @default none */
  config?: GenerateContentConfig;
}

/** The defaults of {@link GeminiLlmClientOptions}. */
export const DEFAULT_GEMINI_LLM_CLIENT_OPTIONS = Object.freeze({ maxOutputTokens: 2048 });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

const objectOption = z.record(z.string(), z.unknown(), { error: "must be an object" });

const GeminiLlmClientOptionsSchema = z
  .strictObject(
    {
      client: z.exactOptional(
        z.custom<GeminiModelsClient>(
          (value) =>
            isObject(value) &&
            isObject(value.models) &&
            typeof value.models.generateContent === "function",
          "must be a Gemini client (with models.generateContent)",
        ),
      ),
      model: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
      request: z.exactOptional(
        z.looseObject(
          {
            model: NON_EMPTY_STRING_SCHEMA,
            config: z.exactOptional(objectOption),
          },
          { error: "must be an object with model" },
        ),
      ),
      maxOutputTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
      config: z.exactOptional(objectOption),
    },
    { error: "must be an object" },
  )
  .check(
    z.refine((options) => options.model !== undefined || options.request !== undefined, {
      path: ["model"],
      message: "is required unless request (the agent's request description) is given",
    }),
  );

/** The text of a response's first candidate: its parts' text, thoughts left out. */
export function geminiResponseText(response: Pick<GenerateContentResponse, "candidates">): string {
  let text = "";
  for (const part of response.candidates?.[0]?.content?.parts ?? [])
    if (typeof part.text === "string" && part.thought !== true) text += part.text;
  return text;
}

/**
 * Output tokens added when the request thinks (Gemini counts thinking in `maxOutputTokens`), so
 * thinking does not eat the summary: the thinking budget when one is set, none when thinking is
 * off (`thinkingBudget: 0`), else as much again as the summary may take.
 */
function thinkingReserve(config: GenerateContentConfig | undefined, summaryTokens: number): number {
  const budget = config?.thinkingConfig?.thinkingBudget;
  if (budget === 0) return 0;
  return typeof budget === "number" && Number.isSafeInteger(budget) && budget > 0
    ? budget
    : summaryTokens;
}

/** `contents` with `text` as the final user text: in the last user content, or one of its own. */
function withFinalUserText(contents: Content[], text: string): Content[] {
  const last = contents.at(-1);
  if (last !== undefined && (last.role ?? "user") === "user")
    return [...contents.slice(0, -1), { ...last, parts: [...(last.parts ?? []), { text }] }];
  return [...contents, { role: "user", parts: [{ text }] }];
}

/**
 * An `LlmClient` on `@google/genai`: each summary is one `models.generateContent` call, and its
 * reply comes back with the response's usage (cache reads and thinking included), so the session
 * counts what summaries cost. Built with the agent's `request` it takes the conversation: the
 * summary request is the agent's own (same model, system instruction, tools, thinking, contents)
 * with the instruction appended, read from Gemini's implicit cache. Otherwise it is a transcript
 * with the summarizer's system instruction. SDK errors are thrown as they are, so `LLMCompactor`
 * reports them as `llm_error` with the original as `cause`.
 *
 * @example
 * const AGENT = { model: "gemini-3-flash-preview", config: { systemInstruction: SYSTEM, tools: TOOLS } };
 * const compactor = new LLMCompactor(new GeminiLlmClient({ client: new GoogleGenAI({}), request: AGENT }));
 */
export class GeminiLlmClient implements LlmClient {
  /** The model that writes summaries. */
  readonly model: string;
  /** Whether summaries are sent as the agent's own conversation (a `request` was given). */
  readonly acceptsConversation: boolean;
  readonly #client: GeminiModelsClient;
  readonly #request: GeminiRequestDescription | undefined;
  readonly #maxOutputTokens: number;
  readonly #config: GenerateContentConfig;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: GeminiLlmClientOptions) {
    const parsed = parseOrThrow(GeminiLlmClientOptionsSchema, options, "GeminiLlmClientOptions");
    this.#request = options.request === undefined ? undefined : { ...options.request };
    this.model = parsed.model ?? (parsed.request?.model as string);
    this.acceptsConversation = options.request !== undefined;
    this.#client = options.client ?? new GoogleGenAI({});
    this.#maxOutputTokens =
      parsed.maxOutputTokens ?? DEFAULT_GEMINI_LLM_CLIENT_OPTIONS.maxOutputTokens;
    this.#config = { ...options.config };
  }

  /**
   * Sends one summary request and returns the reply's text and usage: the conversation with the
   * prompt appended when `request.conversation` is set, else the prompt as the only content.
   */
  async complete(request: LlmRequest): Promise<LlmReply> {
    const params =
      request.conversation === undefined
        ? this.#transcriptParams(request)
        : this.#conversationParams(request);
    const summaryTokens = request.maxTokens ?? this.#maxOutputTokens;
    const config: GenerateContentConfig = {
      ...params.config,
      maxOutputTokens: summaryTokens + thinkingReserve(params.config, summaryTokens),
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
    };
    const response = await this.#client.models.generateContent({ ...params, config });
    if (!isObject(response)) throw new TypeError("Gemini response is not an object");
    const candidate: unknown = response.candidates?.[0];
    assertSummaryFinished(
      "the summary response",
      isObject(candidate) ? candidate["finishReason"] : undefined,
      UNFINISHED_CANDIDATE,
    );
    const usage = compactionUsageFromGemini(response.usageMetadata as GeminiUsageLike | undefined);
    return { text: geminiResponseText(response), ...(usage === undefined ? {} : { usage }) };
  }

  #transcriptParams(request: LlmRequest): GenerateContentParameters {
    return {
      model: this.model,
      contents: [{ role: "user", parts: [{ text: request.prompt }] }],
      config: {
        ...this.#config,
        ...(request.system === undefined ? {} : { systemInstruction: request.system }),
      },
    };
  }

  /**
   * The agent's request with the instruction appended; its config wins over `config`, but with
   * tools the model may not call one (a call is no summary: `empty_summary`), as the chat
   * client's `tool_choice: "none"`.
   */
  #conversationParams(request: LlmRequest): GenerateContentParameters {
    const description = this.#request ?? { model: this.model };
    const instruction =
      request.system === undefined ? request.prompt : `${request.system}\n\n${request.prompt}`;
    const config: GenerateContentConfig = { ...this.#config, ...description.config };
    if (config.tools !== undefined && config.tools.length > 0)
      config.toolConfig = {
        ...config.toolConfig,
        functionCallingConfig: { mode: FunctionCallingConfigMode.NONE },
      };
    return {
      ...description,
      contents: withFinalUserText(toGeminiContents(request.conversation ?? []), instruction),
      config,
    };
  }
}

/** The finish reasons that leave a summary unfinished, and what to do. */
const UNFINISHED_CANDIDATE: Readonly<Record<string, string>> = {
  MAX_TOKENS: "the summary was cut off: raise maxOutputTokens",
  MALFORMED_FUNCTION_CALL: SUMMARY_CALLED_A_TOOL,
  UNEXPECTED_TOOL_CALL: SUMMARY_CALLED_A_TOOL,
  TOO_MANY_TOOL_CALLS: SUMMARY_CALLED_A_TOOL,
  SAFETY: SUMMARY_DECLINED,
  RECITATION: SUMMARY_DECLINED,
  BLOCKLIST: SUMMARY_DECLINED,
  PROHIBITED_CONTENT: SUMMARY_DECLINED,
  SPII: SUMMARY_DECLINED,
  LANGUAGE: SUMMARY_DECLINED,
};
