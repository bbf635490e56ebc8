import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
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
import { POSITIVE_INT_SCHEMA } from "../core/option-schemas.js";
import { reasoningReserve } from "../internal/reasoning-reserve.js";
import {
  type ChatCompletionsRequestDescription,
  ChatCompletionsRequestDescriptionSchema,
  chatCompletionsRequest,
} from "./request.js";
import { compactionUsageFromChatCompletion } from "./usage.js";

/** Options of one SDK request (`timeout`, `headers`, `maxRetries`); the signal is set per call. */
export type ChatCompletionsRequestOptions = Omit<OpenAI.RequestOptions, "signal">;

/**
 * The client shape {@link ChatCompletionsLlmClient} needs: `chat.completions.create`. An
 * `OpenAI` (or `AzureOpenAI`) with a `baseURL` fits any compatible host: vLLM, Ollama, Groq,
 * DeepSeek, OpenRouter.
 */
export interface ChatCompletionsClient {
  chat: {
    completions: {
      create(
        body: ChatCompletionCreateParamsNonStreaming,
        options?: OpenAI.RequestOptions,
      ): PromiseLike<ChatCompletion>;
    };
  };
}

/** Extra `chat.completions.create` parameters for every summary request (`temperature`, …). */
export type ChatCompletionsExtraParams = Omit<
  Partial<ChatCompletionCreateParamsNonStreaming>,
  "model" | "messages" | "stream"
>;

/** Options of {@link ChatCompletionsLlmClient}. */
export interface ChatCompletionsLlmClientOptions {
  /** The client. @default new OpenAI() (reads OPENAI_API_KEY and OPENAI_BASE_URL) */
  client?: ChatCompletionsClient;
  /** The model that writes transcript summaries; required unless `request` is given. @default request.model */
  model?: string;
  /**
   * The agent's request description (the one its loop passes to `chatCompletionsRequest`).
   * With it the client takes the conversation: a summary request is the agent's system prompt,
   * messages and tools with the instruction appended as the final user text (after a last user
   * message's own text, so the roles still alternate; and `tool_choice: "none"`), so the host
   * reads its prefix from the prompt cache. Without it
   * every summary is a transcript in one user message. @default none
   */
  request?: ChatCompletionsRequestDescription;
  /**
   * The summary's token budget when the request sets none. With `max_completion_tokens`, as
   * much again is added for reasoning, unless `reasoning_effort` is `"none"`. @default 2048
   */
  maxTokens?: number;
  /**
   * The body field the budget goes in: OpenAI's `max_completion_tokens` (its reasoning models
   * refuse `max_tokens`), or `max_tokens` for hosts that know only that one (DeepSeek, older
   * servers). @default "max_completion_tokens"
   */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** More body parameters for every request (`temperature`, a host's own fields, …). @default none */
  params?: ChatCompletionsExtraParams;
  /** SDK request options (timeout, headers, retries). @default none */
  requestOptions?: ChatCompletionsRequestOptions;
}

/** Defaults of {@link ChatCompletionsLlmClientOptions}. */
export const DEFAULT_CHAT_COMPLETIONS_LLM_CLIENT_OPTIONS = Object.freeze({
  maxTokens: 2048,
  maxTokensField: "max_completion_tokens" as const,
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

const ObjectSchema = z.record(z.string(), z.unknown(), { error: "must be an object" });

const OptionsSchema = z
  .strictObject({
    client: z.exactOptional(
      z.custom<ChatCompletionsClient>(
        (value) =>
          isObject(value) &&
          isObject(value.chat) &&
          isObject(value.chat.completions) &&
          typeof value.chat.completions.create === "function",
        "must be an OpenAI client (with chat.completions.create)",
      ),
    ),
    model: z.exactOptional(
      z
        .string({ error: "must be a string" })
        .check(z.minLength(1, "must be a non-empty model name")),
    ),
    request: z.exactOptional(ChatCompletionsRequestDescriptionSchema),
    maxTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
    maxTokensField: z.exactOptional(
      z.enum(["max_completion_tokens", "max_tokens"], {
        error: 'must be "max_completion_tokens" or "max_tokens"',
      }),
    ),
    params: z.exactOptional(ObjectSchema),
    requestOptions: z.exactOptional(ObjectSchema),
  })
  .check(
    z.refine((options) => options.model !== undefined || options.request !== undefined, {
      path: ["model"],
      message: "is required unless request (the agent's request description) is given",
    }),
  );

/** The text of a completion: its first choice's `content`. */
export function completionText(completion: Pick<ChatCompletion, "choices">): string {
  const content: unknown = completion.choices[0]?.message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isObject(part) && typeof part["text"] === "string" ? part["text"] : ""))
    .join("");
}

/**
 * An `LlmClient` on `chat.completions.create`, for OpenAI and every compatible host: each
 * summary is one call, and its reply comes back with the completion's usage (cache reads and
 * writes included), so the session counts what summaries cost. Built with the agent's
 * `request` description it takes the conversation: the summary request is the agent's own
 * (same model, system prompt, tools and messages) with the instruction appended, read from
 * the prompt cache. Otherwise it is a transcript with the summarizer's system prompt. SDK
 * errors are thrown as they are, so `LLMCompactor` reports them as `llm_error`.
 *
 * @example
 * const AGENT = { model: "gpt-5.6-luna", system: SYSTEM, tools: TOOLS };
 * const compactor = new LLMCompactor(new ChatCompletionsLlmClient({ client: new OpenAI(), request: AGENT }));
 */
export class ChatCompletionsLlmClient implements LlmClient {
  /** The model that writes transcript summaries. */
  readonly model: string;
  /** Whether summaries are sent as the agent's own conversation (a `request` was given). */
  readonly acceptsConversation: boolean;
  readonly #client: ChatCompletionsClient;
  readonly #description: ChatCompletionsRequestDescription | undefined;
  readonly #maxTokens: number;
  readonly #maxTokensField: "max_completion_tokens" | "max_tokens";
  readonly #params: ChatCompletionsExtraParams;
  readonly #requestOptions: ChatCompletionsRequestOptions;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: ChatCompletionsLlmClientOptions) {
    const parsed = parseOrThrow(OptionsSchema, options, "ChatCompletionsLlmClientOptions");
    this.#description = parsed.request as ChatCompletionsRequestDescription | undefined;
    this.model = parsed.model ?? parsed.request!.model;
    this.acceptsConversation = options.request !== undefined;
    this.#client = options.client ?? new OpenAI();
    this.#maxTokens = parsed.maxTokens ?? DEFAULT_CHAT_COMPLETIONS_LLM_CLIENT_OPTIONS.maxTokens;
    this.#maxTokensField =
      parsed.maxTokensField ?? DEFAULT_CHAT_COMPLETIONS_LLM_CLIENT_OPTIONS.maxTokensField;
    this.#params = { ...options.params };
    this.#requestOptions = { ...options.requestOptions };
  }

  /**
   * Sends one summary request and returns the reply's text and usage: the conversation with
   * the prompt appended when `request.conversation` is set, else the prompt as one user message.
   */
  async complete(request: LlmRequest): Promise<LlmReply> {
    const body: ChatCompletionCreateParamsNonStreaming = {
      ...this.#params,
      ...(request.conversation === undefined
        ? this.#transcriptBody(request)
        : this.#conversationBody(request)),
    };
    const budget = request.maxTokens ?? this.#maxTokens;
    // OpenAI's `max_completion_tokens` counts reasoning too: room for it beside the summary.
    // `max_tokens` hosts (DeepSeek, older servers) get the budget alone: some cap it low.
    body[this.#maxTokensField] =
      this.#maxTokensField === "max_completion_tokens"
        ? budget + reasoningReserve(body.reasoning_effort, budget)
        : budget;
    const completion = await this.#client.chat.completions.create(body, {
      ...this.#requestOptions,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!isObject(completion) || !Array.isArray(completion.choices)) {
      throw new TypeError("Chat completion has no choices array");
    }
    const choice: unknown = completion.choices[0];
    assertSummaryFinished(
      "the summary completion",
      isObject(choice) ? choice["finish_reason"] : undefined,
      UNFINISHED_COMPLETION,
    );
    const usage = compactionUsageFromChatCompletion(completion.usage);
    return { text: completionText(completion), ...(usage === undefined ? {} : { usage }) };
  }

  #transcriptBody(request: LlmRequest): ChatCompletionCreateParamsNonStreaming {
    const messages: ChatCompletionMessageParam[] = [];
    if (request.system !== undefined) messages.push({ role: "system", content: request.system });
    messages.push({ role: "user", content: request.prompt });
    return { model: this.model, messages };
  }

  /** The agent's request with the instruction appended as the final user text. */
  #conversationBody(request: LlmRequest): ChatCompletionCreateParamsNonStreaming {
    const description = this.#description ?? { model: this.model };
    const instruction =
      request.system === undefined ? request.prompt : `${request.system}\n\n${request.prompt}`;
    const built = chatCompletionsRequest(description, request.conversation ?? []);
    withFinalUserText(built.messages, instruction);
    return { ...built, ...(built.tools === undefined ? {} : { tool_choice: "none" }) };
  }
}

/**
 * Appends `text` to `messages` as the final user text: after the text of a last user message
 * (a request the conversation ends with), else as a user message of its own. Two user
 * messages in a row are refused by hosts whose chat template wants user and assistant to
 * alternate (Gemma, older Mistral on vLLM or llama.cpp), as `toChatMessages` knows. The
 * messages are the request's own copies.
 */
function withFinalUserText(messages: ChatCompletionMessageParam[], text: string): void {
  const last = messages.at(-1);
  if (last?.role !== "user") {
    messages.push({ role: "user", content: text });
    return;
  }
  const { content } = last;
  messages[messages.length - 1] = {
    ...last,
    content:
      typeof content === "string"
        ? content === ""
          ? text
          : `${content}\n\n${text}`
        : [...content, { type: "text", text }],
  };
}

/** The finish reasons that leave a summary unfinished, and what to do. */
const UNFINISHED_COMPLETION: Readonly<Record<string, string>> = {
  length: "the summary was cut off: raise maxTokens",
  tool_calls: SUMMARY_CALLED_A_TOOL,
  function_call: SUMMARY_CALLED_A_TOOL,
  content_filter: SUMMARY_DECLINED,
};
