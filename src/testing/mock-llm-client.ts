import type { LlmClient, LlmReply, LlmRequest } from "../core/llm-client.js";

/**
 * One scripted reply: a summary text, a text with its usage (`{ text, usage }`, so the cost is
 * counted), an `Error` to reject with, `{ hang: true }` to never settle (until aborted), or a
 * function of the request.
 */
export type MockReply =
  | string
  | LlmReply
  | Error
  | { hang: true }
  | ((request: LlmRequest, index: number) => string | LlmReply | Promise<string | LlmReply>);

/** Options of {@link MockLlmClient}. */
export interface MockLlmClientOptions {
  /** Replies used in order, one per request. @default [] */
  replies?: MockReply[];
  /** The reply once the script runs out. @default a short deterministic summary */
  defaultReply?: MockReply;
  /**
   * Whether the mock takes the conversation (`LlmRequest.conversation`), as a provider client
   * that reads the prompt cache does. @default false
   */
  acceptsConversation?: boolean;
}

/**
 * A scripted `LlmClient` for tests: records every request, and can reply, fail, hang (for
 * timeouts) or return an empty summary. A hanging reply rejects when the request is aborted.
 *
 * @example
 * const client = new MockLlmClient().reply("summary").fail(new Error("429")).hang();
 * const compactor = new LLMCompactor(client);
 */
export class MockLlmClient implements LlmClient {
  /** Every request received, in order. */
  readonly requests: LlmRequest[] = [];
  /** Whether `LLMCompactor` sends it the conversation (see {@link MockLlmClientOptions}). */
  readonly acceptsConversation: boolean;
  readonly #script: MockReply[];
  readonly #defaultReply: MockReply;

  /** Takes options, or the scripted replies alone (`new MockLlmClient(["first", "second"])`). */
  constructor(options: MockLlmClientOptions | MockReply[] = {}) {
    if (Array.isArray(options)) options = { replies: options };
    this.#script = [...(options.replies ?? [])];
    this.acceptsConversation = options.acceptsConversation === true;
    this.#defaultReply =
      options.defaultReply ??
      ((request, index) => `Summary ${index + 1} of ${request.prompt.length} characters.`);
  }

  /** Queues a reply: a text, or a text with its usage. */
  reply(text: string | LlmReply): this {
    this.#script.push(text);
    return this;
  }

  /** Queues a failure. @default Error("mock LLM failure") */
  fail(error: Error = new Error("mock LLM failure")): this {
    this.#script.push(error);
    return this;
  }

  /** Queues a reply that never comes (the request only ends by abort). */
  hang(): this {
    this.#script.push({ hang: true });
    return this;
  }

  /** Queues an empty summary. */
  empty(): this {
    this.#script.push("");
    return this;
  }

  /** How many requests were received. */
  get callCount(): number {
    return this.requests.length;
  }

  /** The last request received. */
  get lastRequest(): LlmRequest | undefined {
    return this.requests.at(-1);
  }

  async complete(request: LlmRequest): Promise<string | LlmReply> {
    const index = this.requests.length;
    this.requests.push(request);
    const reply = this.#script.shift() ?? this.#defaultReply;
    if (request.signal?.aborted) throw abortError(request.signal);
    if (typeof reply === "string") return reply;
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return reply(request, index);
    if ("text" in reply) return reply;
    return new Promise<string>((_, reject) => {
      request.signal?.addEventListener("abort", () => reject(abortError(request.signal)), {
        once: true,
      });
    });
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const error = new Error("the request was aborted", { cause: signal?.reason });
  error.name = "AbortError";
  return error;
}
