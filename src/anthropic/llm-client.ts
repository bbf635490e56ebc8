import Anthropic from "@anthropic-ai/sdk";
import type {
  Message as AnthropicMessage,
  MessageCountTokensParams,
  MessageCreateParamsNonStreaming,
  MessageTokensCount,
} from "@anthropic-ai/sdk/resources/messages";
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import type { LlmClient, LlmRequest } from "../core/llm-client.js";
import { ModelNameSchema } from "./param-schemas.js";
import { clientSecrets, redactSecrets } from "./redact.js";

/** SDK request options (timeout, retries, headers); the abort signal is set per call. */
export type AnthropicRequestOptions = Omit<Anthropic.RequestOptions, "signal">;

/**
 * The part of an SDK client the adapter uses: `new Anthropic()` fits, and so do clients of
 * other platforms with the same `messages` resource (Bedrock, Vertex).
 */
export interface AnthropicMessagesClient {
  messages: {
    create(
      body: MessageCreateParamsNonStreaming,
      options?: Anthropic.RequestOptions,
    ): PromiseLike<AnthropicMessage>;
    countTokens(
      body: MessageCountTokensParams,
      options?: Anthropic.RequestOptions,
    ): PromiseLike<MessageTokensCount>;
  };
  /** Scrubbed from errors, so the key never reaches a message or an event. */
  apiKey?: string | null;
  /** Scrubbed from errors like `apiKey`. */
  authToken?: string | null;
}

/** Request parameters sent with every summary, besides the ones the adapter sets. */
export type AnthropicExtraParams = Omit<
  MessageCreateParamsNonStreaming,
  "model" | "messages" | "max_tokens" | "system" | "stream"
>;

/** Options of {@link AnthropicLlmClient}. */
export interface AnthropicLlmClientOptions {
  /** The SDK client. @default new Anthropic() (reads ANTHROPIC_API_KEY) */
  client?: AnthropicMessagesClient;
  /** The model that writes summaries, e.g. `"claude-haiku-4-5"`. */
  model: string;
  /** `max_tokens` when the request does not set `maxTokens`. @default 2048 */
  maxTokens?: number;
  /** More request parameters (metadata, service_tier, thinking, …). */
  params?: AnthropicExtraParams;
  /** SDK request options (timeout, maxRetries, headers). */
  requestOptions?: AnthropicRequestOptions;
}

/** The defaults of {@link AnthropicLlmClientOptions}. */
export const DEFAULT_ANTHROPIC_LLM_CLIENT_OPTIONS = Object.freeze({ maxTokens: 2048 });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** Schema of the client option: anything with `messages.create`. */
export const AnthropicMessagesClientSchema = z.custom<AnthropicMessagesClient>(
  (value) =>
    isObject(value) && isObject(value.messages) && typeof value.messages.create === "function",
  "must be an Anthropic client (with messages.create)",
);

const AnthropicLlmClientOptionsSchema = z.strictObject({
  client: AnthropicMessagesClientSchema.exactOptional(),
  model: ModelNameSchema,
  maxTokens: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be greater than 0")
    .exactOptional(),
  params: z.record(z.string(), z.unknown(), { error: "must be an object" }).exactOptional(),
  requestOptions: z.record(z.string(), z.unknown(), { error: "must be an object" }).exactOptional(),
});

/** The text of a response: its text blocks, concatenated. */
export function responseText(response: Pick<AnthropicMessage, "content">): string {
  let text = "";
  for (const block of response.content) if (block.type === "text") text += block.text;
  return text;
}

/**
 * An `LlmClient` on `@anthropic-ai/sdk`: each summary is one `messages.create` call with
 * the summarizer's system prompt, `max_tokens` from the request and its abort signal. SDK
 * errors (4xx, 429 and 5xx after the SDK's own retries, connection errors) are thrown as
 * they are, minus the API key, so `LLMCompactor` reports them as `llm_error` with the
 * original as `cause`.
 *
 * @example
 * const compactor = new LLMCompactor(
 *   new AnthropicLlmClient({ client: new Anthropic(), model: "claude-haiku-4-5" }),
 * );
 */
export class AnthropicLlmClient implements LlmClient {
  /** The model that writes summaries. */
  readonly model: string;
  readonly #client: AnthropicMessagesClient;
  readonly #maxTokens: number;
  readonly #params: AnthropicExtraParams;
  readonly #requestOptions: AnthropicRequestOptions;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AnthropicLlmClientOptions) {
    const parsed = parseOrThrow(
      AnthropicLlmClientOptionsSchema,
      options,
      "AnthropicLlmClientOptions",
    );
    this.model = parsed.model;
    this.#client = options.client ?? new Anthropic();
    this.#maxTokens = parsed.maxTokens ?? DEFAULT_ANTHROPIC_LLM_CLIENT_OPTIONS.maxTokens;
    this.#params = options.params ?? {};
    this.#requestOptions = options.requestOptions ?? {};
  }

  /** Sends the prompt as one user message and returns the reply's text. */
  async complete(request: LlmRequest): Promise<string> {
    const body: MessageCreateParamsNonStreaming = {
      ...this.#params,
      model: this.model,
      max_tokens: request.maxTokens ?? this.#maxTokens,
      messages: [{ role: "user", content: request.prompt }],
      ...(request.system === undefined ? {} : { system: request.system }),
    };
    let response: AnthropicMessage;
    try {
      response = await this.#client.messages.create(body, {
        ...this.#requestOptions,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
    } catch (error) {
      throw redactSecrets(error, clientSecrets(this.#client));
    }
    if (!isObject(response) || !Array.isArray(response.content)) {
      throw new TypeError("Anthropic response has no content array");
    }
    return responseText(response);
  }
}
