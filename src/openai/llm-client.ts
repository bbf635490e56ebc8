import OpenAI from "openai";
import type {
  Response,
  ResponseCreateParamsNonStreaming,
} from "openai/resources/responses/responses";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  assertSummaryFinished,
  type LlmClient,
  type LlmRequest,
  SUMMARY_DECLINED,
} from "../core/llm-client.js";
import {
  methodsSchema,
  NON_EMPTY_STRING_SCHEMA,
  optionsSchema,
  POSITIVE_INT_SCHEMA,
  plainObjectSchema,
} from "../core/option-schemas.js";
import { reasoningReserve } from "../internal/reasoning-reserve.js";

/** Options of one SDK request (`timeout`, `headers`, `maxRetries`, `signal`, …). */
export type OpenAIRequestOptions = NonNullable<Parameters<OpenAI["responses"]["compact"]>[1]>;
type RequestOptions = OpenAIRequestOptions;

/** The client shape {@link OpenAILlmClient} needs: `responses.create` (an `OpenAI` or `AzureOpenAI`). */
export interface OpenAIResponsesClient {
  responses: {
    create(body: ResponseCreateParamsNonStreaming, options?: RequestOptions): PromiseLike<Response>;
  };
}

/** Extra `responses.create` parameters for every summary request (`reasoning`, `store`, …). */
export type OpenAIExtraParams = Omit<
  Partial<ResponseCreateParamsNonStreaming>,
  "model" | "input" | "instructions" | "max_output_tokens" | "stream"
>;

/** Options of {@link OpenAILlmClient}. */
export interface OpenAILlmClientOptions {
  /** The client. @default new OpenAI() (reads OPENAI_API_KEY) */
  client?: OpenAIResponsesClient;
  /** The model that writes summaries. */
  model: string;
  /**
   * The summary's token budget when the request sets none; as much again is added for
   * reasoning, unless `params.reasoning.effort` is `"none"`. @default 2048
   */
  maxOutputTokens?: number;
  /** Extra parameters for every request. @default none */
  params?: OpenAIExtraParams;
  /** SDK request options (timeout, headers, retries). @default none */
  requestOptions?: RequestOptions;
}

/** Defaults of {@link OpenAILlmClientOptions}. */
export const DEFAULT_OPENAI_LLM_CLIENT_OPTIONS = Object.freeze({ maxOutputTokens: 2048 });

/** Schema of {@link OpenAILlmClientOptions}. */
const OpenAILlmClientOptionsSchema = optionsSchema({
  client: z.exactOptional(
    methodsSchema<OpenAIResponsesClient>("an OpenAI client", "responses.create"),
  ),
  model: NON_EMPTY_STRING_SCHEMA,
  maxOutputTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
  params: z.exactOptional(plainObjectSchema<OpenAIExtraParams>()),
  requestOptions: z.exactOptional(plainObjectSchema<RequestOptions>()),
});

/**
 * An `LlmClient` on OpenAI's Responses API: each summary is one `responses.create` call, the
 * summarizer's system prompt as `instructions`, the request's token budget and abort signal.
 * SDK errors are thrown as they are, so `LLMCompactor` reports them as `llm_error`.
 *
 * @example
 * const compactor = new LLMCompactor(new OpenAILlmClient({ client: new OpenAI(), model: "gpt-6.1-sol" }));
 */
export class OpenAILlmClient implements LlmClient {
  /** The model that writes summaries. */
  readonly model: string;
  readonly #client: OpenAIResponsesClient;
  readonly #options: OpenAILlmClientOptions;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: OpenAILlmClientOptions) {
    const parsed: OpenAILlmClientOptions = parseOrThrow(
      OpenAILlmClientOptionsSchema,
      options,
      "OpenAILlmClientOptions",
    );
    this.model = parsed.model;
    this.#client = parsed.client ?? new OpenAI();
    this.#options = parsed;
  }

  /** Sends the prompt as the input and returns the reply's text. */
  async complete(request: LlmRequest): Promise<string> {
    const options = this.#options;
    const budget =
      request.maxTokens ??
      options.maxOutputTokens ??
      DEFAULT_OPENAI_LLM_CLIENT_OPTIONS.maxOutputTokens;
    const body: ResponseCreateParamsNonStreaming = {
      ...options.params,
      model: this.model,
      input: request.prompt,
      // Reasoning counts in `max_output_tokens`: room for it beside the summary.
      max_output_tokens: budget + reasoningReserve(options.params?.reasoning?.effort, budget),
      ...(request.system === undefined ? {} : { instructions: request.system }),
    };
    const response = await this.#client.responses.create(body, {
      ...options.requestOptions,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (typeof response !== "object" || response === null || !Array.isArray(response.output)) {
      throw new TypeError("OpenAI response has no output array");
    }
    assertSummaryFinished(
      "the summary response",
      response.status === "incomplete"
        ? (response.incomplete_details?.reason ?? "incomplete")
        : undefined,
      UNFINISHED_RESPONSE,
    );
    return responseText(response);
  }
}

/** The text of a response: its assistant messages' `output_text` parts, concatenated. */
export function responseText(response: Pick<Response, "output">): string {
  let text = "";
  for (const item of response.output) {
    if (item.type !== "message") continue;
    for (const part of item.content) if (part.type === "output_text") text += part.text;
  }
  return text;
}

/** The reasons of an incomplete response, and what to do. */
const UNFINISHED_RESPONSE: Readonly<Record<string, string>> = {
  max_output_tokens: "the summary was cut off: raise maxOutputTokens",
  content_filter: SUMMARY_DECLINED,
  incomplete: "the response is incomplete",
};
