import { generateText, type LanguageModel } from "ai";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  assertSummaryFinished,
  type LlmClient,
  type LlmRequest,
  SUMMARY_CALLED_A_TOOL,
  SUMMARY_DECLINED,
} from "../core/llm-client.js";
import {
  NON_NEGATIVE_INT_SCHEMA,
  optionsSchema,
  POSITIVE_INT_SCHEMA,
  plainObjectSchema,
} from "../core/option-schemas.js";

/** Provider options passed through to every summary request (`providerOptions` of `generateText`). */
export type AiSdkProviderOptions = NonNullable<
  Parameters<typeof generateText>[0]["providerOptions"]
>;

/** Options of {@link AiSdkLlmClient}. */
export interface AiSdkLlmClientOptions {
  /** The model that writes summaries: any AI SDK `LanguageModel` (a provider's model or an id). */
  model: LanguageModel;
  /** The summary's token budget when the request sets none. @default 2048 */
  maxOutputTokens?: number;
  /** Retries of a failed call, by the AI SDK. @default 2 (the AI SDK's own default) */
  maxRetries?: number;
  /** Provider options for every request (`{ anthropic: { … } }`). @default none */
  providerOptions?: AiSdkProviderOptions;
}

/** Defaults of {@link AiSdkLlmClientOptions}. */
export const DEFAULT_AI_SDK_LLM_CLIENT_OPTIONS = Object.freeze({ maxOutputTokens: 2048 });

/** Schema of {@link AiSdkLlmClientOptions}. */
const AiSdkLlmClientOptionsSchema = optionsSchema({
  model: z.custom<LanguageModel>(
    (value) => typeof value === "string" || (typeof value === "object" && value !== null),
    "must be a LanguageModel or a model id",
  ),
  maxOutputTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
  maxRetries: z.exactOptional(NON_NEGATIVE_INT_SCHEMA),
  providerOptions: z.exactOptional(plainObjectSchema<AiSdkProviderOptions>()),
});

/**
 * An `LlmClient` on any AI SDK `LanguageModel`: each summary is one `generateText` call with
 * the summarizer's system prompt, the request's token budget and its abort signal. Errors
 * (after the AI SDK's retries) are thrown as they are, so `LLMCompactor` reports them as
 * `llm_error` with the original as `cause`.
 *
 * @example
 * import { anthropic } from "@ai-sdk/anthropic";
 * const compactor = new LLMCompactor(new AiSdkLlmClient({ model: anthropic("claude-haiku-4-5") }));
 */
export class AiSdkLlmClient implements LlmClient {
  readonly #options: AiSdkLlmClientOptions;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AiSdkLlmClientOptions) {
    this.#options = parseOrThrow(AiSdkLlmClientOptionsSchema, options, "AiSdkLlmClientOptions");
  }

  /** Sends the prompt as one user message and returns the reply's text. */
  async complete(request: LlmRequest): Promise<string> {
    const options = this.#options;
    const result = await generateText({
      model: options.model,
      prompt: request.prompt,
      maxOutputTokens:
        request.maxTokens ??
        options.maxOutputTokens ??
        DEFAULT_AI_SDK_LLM_CLIENT_OPTIONS.maxOutputTokens,
      ...(request.system === undefined ? {} : { system: request.system }),
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.providerOptions === undefined
        ? {}
        : { providerOptions: options.providerOptions }),
    });
    assertSummaryFinished("the summary", result.finishReason, UNFINISHED_GENERATION);
    return result.text;
  }
}

/** The finish reasons that leave a summary unfinished, and what to do. */
const UNFINISHED_GENERATION: Readonly<Record<string, string>> = {
  length: "the summary was cut off: raise maxOutputTokens",
  "tool-calls": SUMMARY_CALLED_A_TOOL,
  "content-filter": SUMMARY_DECLINED,
  error: "the provider reported an error",
};
