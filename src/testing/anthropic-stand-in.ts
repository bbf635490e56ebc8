import type {
  BetaMessage,
  MessageCountTokensParams as BetaMessageCountTokensParams,
  MessageCreateParamsNonStreaming as BetaMessageCreateParamsNonStreaming,
  BetaMessageTokensCount,
} from "@anthropic-ai/sdk/resources/beta/messages";
import type {
  Message,
  MessageCountTokensParams,
  MessageCreateParamsNonStreaming,
  MessageTokensCount,
} from "@anthropic-ai/sdk/resources/messages";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  BOOLEAN_SCHEMA,
  functionSchema,
  optionsSchema,
  positiveWholeNumber,
} from "../core/option-schemas.js";
import { type ApiErrorBody, errorBody, StandInApiError } from "./anthropic-rules/api-error.js";
import { compactionProblem, isCompactionRequest } from "./anthropic-rules/compaction.js";
import { PromptCache } from "./anthropic-rules/prompt-cache.js";
import { requestProblems } from "./anthropic-rules/request.js";
import {
  type Counters,
  compactionResponse,
  messageResponse,
  requestTokens,
  type StandInCompactionReply,
  type StandInMessageReply,
} from "./anthropic-rules/responses.js";
import { judgeThinking } from "./anthropic-rules/thinking.js";
import { toolChoiceProblem } from "./anthropic-rules/tool-choice.js";
import { type ApiProblem, betasOf, isRecord } from "./anthropic-rules/wire.js";

/** Which client method a request came through. */
export type StandInEndpoint = "messages" | "beta.messages" | "count_tokens";

/** One request as the stand-in received it. */
export interface StandInRequest {
  endpoint: StandInEndpoint;
  /** The body as JSON, as it would go over the wire (`betas` moved to {@link betas}). */
  body: Record<string, unknown>;
  /** The betas asked for (`betas`, or the `anthropic-beta` header). */
  betas: string[];
  /** Whether it asks for on-demand compaction (a top-level `compaction`). */
  compaction: boolean;
}

/** An API error to answer with (`status` 529 for overloaded, 429, …). */
export interface StandInErrorReply {
  error: { status: number; message?: string; type?: string; errorCode?: string };
}

/**
 * One scripted reply: a text, a message (text, tool calls, thinking), an API error, an `Error`
 * to throw as it is, or a function of the request.
 */
export type StandInReply =
  | string
  | StandInMessageReply
  | StandInErrorReply
  | Error
  | ((request: StandInRequest) => StandInReply | Promise<StandInReply>);

/** Options of {@link AnthropicStandIn}. */
export interface AnthropicStandInOptions {
  /**
   * The model's context window: a request whose tokens (about four characters a token, of
   * `system`, tools and messages) exceed it gets the API's 400 "prompt is too long".
   * @default 200000
   */
  contextWindow?: number;
  /**
   * The preserved-thinking prefix check: `"enforced"` (current accounts), `"opt-in"` (only
   * requests that set `prefix_mismatch_behavior`), `"off"` (a model without the check).
   * @default "enforced"
   */
  preservedThinking?: "enforced" | "opt-in" | "off";
  /** Think when the request sets no `thinking`, as current models do. @default false */
  thinkByDefault?: boolean;
  /**
   * Simulate the prompt cache: each request writes its whole prompt, and a later one reads the
   * longest prefix of whole messages an earlier one wrote (`cache_read_input_tokens`), the rest
   * written (`cache_creation_input_tokens`), `input_tokens` 0, as with automatic caching.
   * @default false (every token reported as uncached `input_tokens`)
   */
  promptCache?: boolean;
  /** The reply once the script runs out. @default a text reply "ok" */
  defaultReply?: StandInReply;
  /**
   * Makes the error thrown for an API error, e.g. the SDK's own classes:
   * `(status, body, headers) => Anthropic.APIError.generate(status, body, undefined, headers)`.
   * @default a {@link StandInApiError}, shaped like the SDK's
   */
  makeError?: (status: number, body: ApiErrorBody, headers: Headers) => Error;
}

/** Request options the stand-in reads (the SDK's `RequestOptions` fit). */
export interface StandInRequestOptions {
  signal?: AbortSignal | null | undefined;
  headers?: unknown;
}

/** The defaults of {@link AnthropicStandInOptions}. */
export const DEFAULT_ANTHROPIC_STAND_IN_OPTIONS = Object.freeze({
  contextWindow: 200_000,
  preservedThinking: "enforced",
  thinkByDefault: false,
} as const);

/** Schema of {@link AnthropicStandInOptions}. */
const AnthropicStandInOptionsSchema = optionsSchema({
  contextWindow: z.exactOptional(positiveWholeNumber("tokens")),
  preservedThinking: z.exactOptional(
    z.enum(["enforced", "opt-in", "off"], { error: 'must be "enforced", "opt-in" or "off"' }),
  ),
  thinkByDefault: z.exactOptional(BOOLEAN_SCHEMA),
  promptCache: z.exactOptional(BOOLEAN_SCHEMA),
  makeError: z.exactOptional(functionSchema<AnthropicStandInOptions["makeError"]>()),
});

function validate(options: unknown): AnthropicStandInOptions {
  const given = isRecord(options) ? options : {};
  return parseOrThrow(
    AnthropicStandInOptionsSchema,
    given,
    "AnthropicStandIn options",
  ) as AnthropicStandInOptions;
}

/** The betas of a request: the body's `betas` (moved out, as the SDK does) and the header. */
function splitBetas(body: unknown, options: StandInRequestOptions | undefined) {
  const copy = JSON.parse(JSON.stringify(body ?? {})) as Record<string, unknown>;
  const betas = Array.isArray(copy["betas"]) ? copy["betas"].map(String) : [];
  delete copy["betas"];
  const headers = isRecord(options?.headers) ? options.headers : {};
  const header = headers["anthropic-beta"];
  if (typeof header === "string") betas.push(...betasOf(header));
  return { body: copy, betas };
}

function abortError(): Error {
  const error = new Error("Request was aborted.");
  error.name = "APIUserAbortError";
  return error;
}

/**
 * A scripted stand-in for the Anthropic client's `messages.create`, `messages.countTokens` and
 * `beta.messages.create`, for unit tests of an agent loop with compaction, offline. Pass it
 * where the SDK client goes (the README loop, `AnthropicLlmClient`, `AnthropicCompactor`).
 * Replies are scripted (text, tool calls, signed thinking); usage comes from its own token
 * estimate of the request; and it answers as the API does a request that breaks a rule:
 * tool_use/tool_result pairing and roles, the context window ("prompt is too long"), the
 * preserved-thinking prefix check, and on-demand compaction's (it answers those requests with
 * a signed `compaction` block). Every request is recorded.
 *
 * @example
 * const client = new AnthropicStandIn({ contextWindow: 8_000 })
 *   .reply({ toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] })
 *   .reply("Fixed.");
 * const response = await client.messages.create({ model, max_tokens: 1024, messages });
 */
export class AnthropicStandIn {
  /** Every request received, in order. */
  readonly requests: StandInRequest[] = [];
  /** The Messages API (`client.messages`). */
  readonly messages: {
    create(
      body: MessageCreateParamsNonStreaming,
      options?: StandInRequestOptions,
    ): Promise<Message>;
    countTokens(
      body: MessageCountTokensParams,
      options?: StandInRequestOptions,
    ): Promise<MessageTokensCount>;
  };
  /** The beta Messages API (`client.beta.messages`), where on-demand compaction lives. */
  readonly beta: {
    messages: {
      create(
        body: BetaMessageCreateParamsNonStreaming,
        options?: StandInRequestOptions,
      ): Promise<BetaMessage>;
      countTokens(
        body: BetaMessageCountTokensParams,
        options?: StandInRequestOptions,
      ): Promise<BetaMessageTokensCount>;
    };
  };
  readonly #options: AnthropicStandInOptions;
  readonly #replies: StandInReply[] = [];
  readonly #compactions: (StandInCompactionReply | StandInErrorReply | Error)[] = [];
  readonly #counters: Counters = { messages: 0, toolCalls: 0 };
  readonly #cache: PromptCache | undefined;

  constructor(options: AnthropicStandInOptions = {}) {
    this.#options = validate(options);
    this.#cache = this.#options.promptCache === true ? new PromptCache() : undefined;
    this.messages = {
      create: (body, options) => this.#create("messages", body, options) as Promise<Message>,
      countTokens: (body, options) => this.#countTokens(body, options),
    };
    this.beta = {
      messages: {
        create: (body, options) =>
          this.#create("beta.messages", body, options) as Promise<BetaMessage>,
        countTokens: (body, options) => this.#countTokens(body, options),
      },
    };
  }

  /** Queues replies for the next message requests, in order. */
  reply(...replies: StandInReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  /** Queues an API error (a status and message) or an `Error` thrown as it is. @default a 529 overloaded_error */
  fail(error: Error | StandInErrorReply["error"] = { status: 529 }): this {
    this.#replies.push(error instanceof Error ? error : { error });
    return this;
  }

  /** Queues the answer to the next compaction request: its summary, or a failure. */
  compaction(reply: string | StandInCompactionReply | StandInErrorReply | Error = {}): this {
    this.#compactions.push(typeof reply === "string" ? { summary: reply } : reply);
    return this;
  }

  /** How many requests were received. */
  get callCount(): number {
    return this.requests.length;
  }

  /** The last request received. */
  get lastRequest(): StandInRequest | undefined {
    return this.requests.at(-1);
  }

  #record(endpoint: StandInEndpoint, body: unknown, options?: StandInRequestOptions) {
    const split = splitBetas(body, options);
    const compaction = endpoint !== "count_tokens" && isCompactionRequest(split.body);
    const request: StandInRequest = { endpoint, ...split, compaction };
    this.requests.push(request);
    return request;
  }

  #error(problem: ApiProblem): Error {
    const headers = new Headers({ "request-id": `req_standin_${this.requests.length}` });
    const body = errorBody(problem);
    return (
      this.#options.makeError?.(problem.status, body, headers) ??
      new StandInApiError(problem.status, body, headers)
    );
  }

  /** The 400 a request gets before the model reads it: compaction, `tool_choice`, pairing and roles. */
  #problem(request: StandInRequest): ApiProblem | undefined {
    const early = compactionProblem(request) ?? toolChoiceProblem(request.body);
    if (early !== undefined) return early;
    const [first] = requestProblems(request.body["messages"]);
    return first === undefined ? undefined : { status: 400, message: first };
  }

  async #create(
    endpoint: StandInEndpoint,
    body: unknown,
    options?: StandInRequestOptions,
  ): Promise<unknown> {
    const request = this.#record(endpoint, body, options);
    if (options?.signal?.aborted) throw abortError();
    if (request.body["stream"] === true) {
      throw new TypeError("AnthropicStandIn answers non-streaming requests only (stream: true)");
    }
    const problem = this.#problem(request);
    if (problem !== undefined) throw this.#error(problem);
    const verdict = judgeThinking(request, {
      mode: request.compaction ? "off" : (this.#options.preservedThinking ?? "enforced"),
      thinkByDefault: this.#options.thinkByDefault ?? false,
    });
    if (!verdict.ok) throw this.#error({ status: 400, message: verdict.message });
    const tokens = requestTokens(request.body, verdict.dropped);
    const window = this.#options.contextWindow ?? DEFAULT_ANTHROPIC_STAND_IN_OPTIONS.contextWindow;
    if (tokens > window) {
      throw this.#error({
        status: 400,
        message: `prompt is too long: ${tokens} tokens > ${window} maximum`,
      });
    }
    if (request.compaction) {
      const reply = this.#compactions.shift() ?? {};
      if (reply instanceof Error) throw reply;
      if ("error" in reply) throw this.#apiError(reply);
      return compactionResponse(request.body, tokens, reply, this.#counters);
    }
    const reply = await this.#nextReply(request);
    const cache = this.#cache?.use(request.body, tokens);
    return messageResponse(request.body, verdict, tokens, reply, this.#counters, cache);
  }

  #apiError({ error }: StandInErrorReply): Error {
    return this.#error({
      status: error.status,
      message: error.message ?? `stand-in error ${error.status}`,
      ...(error.type === undefined ? {} : { errorType: error.type }),
      ...(error.errorCode === undefined ? {} : { errorCode: error.errorCode }),
    });
  }

  /** The next scripted message reply, resolved (a function is called once with the request). */
  async #nextReply(request: StandInRequest): Promise<StandInMessageReply> {
    let reply = this.#replies.shift() ?? this.#options.defaultReply ?? "ok";
    if (typeof reply === "function") reply = await reply(request);
    if (typeof reply === "function") throw new TypeError("a reply function returned a function");
    if (reply instanceof Error) throw reply;
    if (typeof reply === "string") return { text: reply };
    if ("error" in reply) throw this.#apiError(reply);
    return reply;
  }

  async #countTokens(
    body: unknown,
    options?: StandInRequestOptions,
  ): Promise<BetaMessageTokensCount> {
    const request = this.#record("count_tokens", body, options);
    if (options?.signal?.aborted) throw abortError();
    const verdict = judgeThinking(request, {
      endpoint: "count_tokens",
      mode: this.#options.preservedThinking ?? "enforced",
      thinkByDefault: this.#options.thinkByDefault ?? false,
    });
    if (!verdict.ok) throw this.#error({ status: 400, message: verdict.message });
    return { input_tokens: requestTokens(request.body, verdict.dropped), context_management: null };
  }
}
