import Anthropic from "@anthropic-ai/sdk";
import type {
  Message as AnthropicMessage,
  MessageCountTokensParams,
  MessageCreateParamsNonStreaming,
  MessageTokensCount,
} from "@anthropic-ai/sdk/resources/messages";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  assertSummaryFinished,
  type LlmClient,
  type LlmReply,
  type LlmRequest,
} from "../core/llm-client.js";
import { POSITIVE_INT_SCHEMA } from "../core/option-schemas.js";
import { addUsage, type CompactionUsage } from "../core/usage.js";
import { UNFINISHED_SUMMARY } from "./compaction-response.js";
import { ModelNameSchema } from "./param-schemas.js";
import { clientSecrets, redactSecrets } from "./redact.js";
import {
  type AnthropicRequestDescription,
  AnthropicRequestDescriptionSchema,
  requestFromParams,
  toAnthropicMessages,
  withFinalUserText,
} from "./request.js";
import { usageFromAnthropic } from "./usage.js";

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
  /**
   * The model that writes transcript summaries, e.g. `"claude-haiku-5-5"`; required unless
   * `request` is given. @default request.model
   */
  model?: string;
  /**
   * The agent's own request description (the object its loop passes to `anthropicRequest`).
   * With it the client takes the conversation: a summary request is the agent's conversation
   * with its model, system prompt, tools and thinking, the instruction appended as the final
   * user message and a top-level `cache_control`, so its input is read from the prompt cache.
   * Without it every summary is a transcript in one user message. @default none
   */
  request?: AnthropicRequestDescription;
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

const AnthropicLlmClientOptionsSchema = z
  .strictObject({
    client: z.exactOptional(AnthropicMessagesClientSchema),
    model: z.exactOptional(ModelNameSchema),
    request: z.exactOptional(AnthropicRequestDescriptionSchema),
    maxTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
    params: z.exactOptional(z.record(z.string(), z.unknown(), { error: "must be an object" })),
    requestOptions: z.exactOptional(
      z.record(z.string(), z.unknown(), { error: "must be an object" }),
    ),
  })
  .check(
    z.refine((options) => options.model !== undefined || options.request !== undefined, {
      path: ["model"],
      message: "is required unless request (the agent's request description) is given",
    }),
  );

/** The text of a response: its text blocks, concatenated. */
export function responseText(response: Pick<AnthropicMessage, "content">): string {
  let text = "";
  for (const block of response.content) if (block.type === "text") text += block.text;
  return text;
}

/**
 * An `LlmClient` on `@anthropic-ai/sdk`: each summary is one `messages.create` call, and its
 * reply comes back with the response's usage (cache reads and writes included), so the
 * session counts what summaries cost. Built with the agent's `request` description it takes
 * the conversation: the summary request is the agent's own request (same model, system,
 * tools, thinking and messages) with the instruction appended, read from the prompt cache.
 * Otherwise, and for a conversation too long to send, it is a transcript with the
 * summarizer's system prompt. SDK errors (4xx, 429 and 5xx after the SDK's own retries,
 * connection errors) are thrown as they are, minus the API key, so `LLMCompactor` reports
 * them as `llm_error` with the original as `cause`.
 *
 * The summary request sets no `tool_choice`, as the agent's requests set none: "changes to the
 * `tool_choice` parameter will invalidate cached message blocks", so `none` on every summary
 * would pay the whole conversation again. A reply that calls a tool instead (the agent's tools
 * are offered) is asked once more with `tool_choice: { type: "none" }`, which "prevents Claude
 * from using any tools" (its tools and system prompt still read from the cache, its messages
 * not); both calls' usage is reported. A reply that still calls one, or stops before its text
 * is whole, is an `llm_error` naming the stop reason.
 *
 * @example
 * const AGENT = { model: "claude-sonnet-5-5", system: SYSTEM, tools: TOOLS };
 * const compactor = new LLMCompactor(new AnthropicLlmClient({ client: new Anthropic(), request: AGENT }));
 */
export class AnthropicLlmClient implements LlmClient {
  /** The model that writes transcript summaries. */
  readonly model: string;
  /** Whether summaries are sent as the agent's own conversation (a `request` was given). */
  readonly acceptsConversation: boolean;
  readonly #client: AnthropicMessagesClient;
  readonly #description: AnthropicRequestDescription | undefined;
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
    this.#description = options.request;
    this.model = parsed.model ?? parsed.request!.model;
    this.acceptsConversation = options.request !== undefined;
    this.#client = options.client ?? new Anthropic();
    this.#maxTokens = parsed.maxTokens ?? DEFAULT_ANTHROPIC_LLM_CLIENT_OPTIONS.maxTokens;
    this.#params = options.params ?? {};
    this.#requestOptions = options.requestOptions ?? {};
  }

  /**
   * Sends one summary request and returns the reply's text and usage: the conversation with
   * the prompt appended when `request.conversation` is set, else the prompt as one user message.
   * A reply that called one of the request's tools instead is asked once more with
   * `tool_choice: { type: "none" }` (see the class).
   */
  async complete(request: LlmRequest): Promise<LlmReply> {
    const body =
      request.conversation === undefined
        ? this.#transcriptBody(request)
        : this.#conversationBody(request);
    const response = await this.#send(body, request.signal);
    if (response.stop_reason !== "tool_use" || !mayCallTools(body)) {
      return summaryReply(response, "the summary response");
    }
    const again = await this.#send({ ...body, tool_choice: NO_TOOL_CALLS }, request.signal);
    return summaryReply(again, "the summary response, asked again with tool_choice none", response);
  }

  /** One `messages.create`, its response checked for a content array; errors without the key. */
  async #send(
    body: MessageCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
  ): Promise<AnthropicMessage> {
    let response: AnthropicMessage;
    try {
      response = await this.#client.messages.create(body, {
        ...this.#requestOptions,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      throw redactSecrets(error, clientSecrets(this.#client));
    }
    if (!isObject(response) || !Array.isArray(response.content)) {
      throw new TypeError("Anthropic response has no content array");
    }
    return response;
  }

  #transcriptBody(request: LlmRequest): MessageCreateParamsNonStreaming {
    return {
      ...this.#params,
      model: this.model,
      max_tokens: request.maxTokens ?? this.#maxTokens,
      messages: [{ role: "user", content: request.prompt }],
      ...(request.system === undefined ? {} : { system: request.system }),
    };
  }

  /** The agent's request with the instruction appended; the description wins over `params`. */
  #conversationBody(request: LlmRequest): MessageCreateParamsNonStreaming {
    const description = this.#description ?? { model: this.model };
    const instruction =
      request.system === undefined ? request.prompt : `${request.system}\n\n${request.prompt}`;
    const messages = withFinalUserText(
      toAnthropicMessages(request.conversation ?? []),
      instruction,
    );
    const maxTokens = request.maxTokens ?? this.#maxTokens;
    return {
      ...this.#params,
      ...requestFromParams(description, messages, {
        maxTokens: maxTokens + thinkingReserve(description.thinking, maxTokens),
      }),
    };
  }
}

/**
 * "`none` prevents Claude from using any tools", and it is valid with extended thinking (the
 * tool use docs: https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools).
 */
const NO_TOOL_CALLS = Object.freeze({ type: "none" as const });

/**
 * Whether a summary request lets the model call a tool: it has tools and no `tool_choice` of
 * `none` already. Only such a request is asked again with `none`: `tool_choice` needs tools,
 * and the tools stay, as a request whose messages hold `tool_use` blocks must define them.
 */
function mayCallTools(body: MessageCreateParamsNonStreaming): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice?.type !== "none";
}

/**
 * The text and usage of a summary response (`earlier`'s usage added: a reply that called a tool
 * cost tokens too); an `llm_error` when it stopped before its text was whole.
 */
function summaryReply(
  response: AnthropicMessage,
  what: string,
  earlier?: AnthropicMessage,
): LlmReply {
  assertSummaryFinished(what, response.stop_reason, UNFINISHED_SUMMARY);
  const own = replyUsage(response.usage);
  const before = earlier === undefined ? undefined : replyUsage(earlier.usage);
  const usage = before === undefined ? own : own === undefined ? before : addUsage(before, own);
  return { text: responseText(response), ...(usage === undefined ? {} : { usage }) };
}

/**
 * Tokens added to `max_tokens` when the agent's requests think, so thinking does not eat the
 * summary: the thinking budget when one is set, else as much again as the summary may take.
 */
function thinkingReserve(
  thinking: AnthropicRequestDescription["thinking"],
  summaryTokens: number,
): number {
  if (thinking === undefined || thinking.type === "disabled") return 0;
  const budget = (thinking as { budget_tokens?: unknown }).budget_tokens;
  return typeof budget === "number" && Number.isSafeInteger(budget) && budget > 0
    ? budget
    : summaryTokens;
}

/**
 * The usage of a summary response, as a compaction reports it; `undefined` without
 * `input_tokens`. Throws `ValidationError` for counts that are not whole numbers ≥ 0.
 */
function replyUsage(usage: unknown): CompactionUsage | undefined {
  const read = usageFromAnthropic(usage as Parameters<typeof usageFromAnthropic>[0]);
  if (read === undefined) return undefined;
  return {
    inputTokens: read.inputTokens,
    outputTokens: read.outputTokens ?? 0,
    cacheCreationInputTokens: read.cacheCreationInputTokens ?? 0,
    cacheReadInputTokens: read.cacheReadInputTokens ?? 0,
  };
}
