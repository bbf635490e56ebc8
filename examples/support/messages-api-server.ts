import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  diagnose,
  fingerprintOf,
  previousMessageId,
  type RequestFingerprint,
  wantsDiagnostics,
} from "./cache-diagnostics.js";
import {
  type ApiProblem,
  compactionProblem,
  defaultSummary,
  isCompactionRequest,
} from "./compaction-rules.js";
import {
  type AppliedEdit,
  applyContextEdits,
  contextManagementProblem,
} from "./context-editing.js";
import { renderedMessages, systemMessageProblem } from "./system-messages.js";
import {
  judgeThinking,
  type PreservedThinkingMode,
  signCompaction,
  signReplyContent,
  type ThinkingVerdict,
} from "./thinking-rules.js";

/**
 * A loopback HTTP server that speaks enough of the Anthropic Messages API for the real
 * `@anthropic-ai/sdk` client to talk to it (`new Anthropic({ baseURL: server.url })`):
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`. It records every request
 * (headers and parsed JSON body) and answers from a script: messages, token counts, API
 * errors (4xx, 429, 5xx), dropped connections, slow or hung responses.
 *
 * It plays a model with preserved thinking (`thinking-rules.ts` has the rules and their
 * sources): while the request thinks (`thinking: { type: "enabled" | "adaptive" }`, or no
 * `thinking` on a server started with `thinkByDefault`) a reply starts with a signed
 * `thinking` block, and every `thinking` / `redacted_thinking` block sent back is checked
 * against the prefix it was produced after: a 400 in the API's words, or dropped and listed
 * in `input_transformations` under `thinking.block_binding.prefix_mismatch_behavior:
 * "drop_block"`. A request the checks reject never reaches the script.
 *
 * It also speaks on-demand compaction (`compaction-rules.ts`: a request with a top-level
 * `compaction` is answered with one signed `compaction` block from the `compaction` script,
 * and blocks sent back are checked), mid-conversation `role: "system"` messages
 * (`system-messages.ts`), server-side context editing (`context-editing.ts`: the model reads
 * the edited request, the response lists `context_management.applied_edits`) and cache
 * diagnostics (`cache-diagnostics.ts`).
 *
 * Used by the offline stand-in of `examples/anthropic-agent.ts` and by the adapter's tests.
 */

/** The endpoints the server speaks. */
export type Endpoint = "messages" | "count_tokens";

/** What answers a request: an endpoint's script, or (for compaction requests) the compaction script. */
export type Script = Endpoint | "compaction";

/** How a request ended. */
export type RequestOutcome = "answered" | "dropped" | "closed_by_client";

/** One request as the server received it. */
export interface RecordedRequest {
  /** Which endpoint it hit; `unknown` for any other path. */
  endpoint: Endpoint | "unknown";
  method: string;
  /** The path with the query string. */
  path: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The body parsed as JSON (the raw text when it is not JSON). */
  body: unknown;
  /** Settles when the exchange ends: answered, dropped by the server, or closed by the client. */
  outcome: Promise<RequestOutcome>;
}

/** A usage object as the API reports it. */
export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
}

/** What the server answers with. */
export type Reply =
  /**
   * A `Message` response; `content` defaults to one text block with `text` ("ok"). While the
   * request thinks, a `thinking` block leads it unless `content` has one. The server signs
   * every `thinking` block without a `signature` and every `redacted_thinking` block without
   * `data` in the reply (a `redacted_thinking` block may carry its hidden text as `hidden`).
   */
  | {
      type: "message";
      text?: string;
      content?: Record<string, unknown>[];
      /**
       * The leading thinking block's text; a string leads the reply with it even when the
       * request does not think, `false` answers without one even when it does.
       * @default a short fixed text while the request thinks
       */
      thinking?: string | false;
      /** Adds a `redacted_thinking` block after the leading thinking block, hiding this text. */
      redactedThinking?: string;
      usage?: Partial<WireUsage>;
      stopReason?: string;
      id?: string;
    }
  /**
   * The answer to a compaction request: one `compaction` block holding `summary` (default: a
   * short summary of the request's messages), signed so that the turns kept after it continue
   * the summarized prefix, `stop_reason: "compaction"`, top-level usage 0 and the cost in
   * `usage.iterations`. With another `stopReason` (`max_tokens`, `refusal`, ...) the content is
   * empty, as when the summarization call writes no summary.
   */
  | {
      type: "compaction";
      summary?: string;
      stopReason?: string;
      /** The `compaction` iteration's tokens. @default the request's and the summary's rough size */
      iteration?: { input_tokens?: number; output_tokens?: number };
      id?: string;
    }
  /** A `count_tokens` response. */
  | { type: "tokens"; inputTokens: number }
  /**
   * An API error: `{ type: "error", error: { type, message, details? } }` with this status
   * (`errorCode` goes in `error.details.error_code`). Unless `headers` says otherwise it carries
   * `retry-after-ms: 1`, so the SDK's retries don't wait.
   */
  | {
      type: "error";
      status: number;
      errorType?: string;
      errorCode?: string;
      message?: string;
      headers?: Record<string, string>;
    }
  /** Any JSON body with any status. */
  | { type: "json"; status: number; body: unknown; headers?: Record<string, string> }
  /** Destroys the connection without answering. */
  | { type: "drop" }
  /** Never answers (until the client gives up or the server closes). */
  | { type: "hang" }
  /** Answers `reply` after `ms` milliseconds (a slow response). */
  | { type: "delay"; ms: number; reply: Reply };

/** A reply, or a function choosing one from the request. */
export type ReplyScript = Reply | ((request: RecordedRequest) => Reply | Promise<Reply>);

/** Options of {@link MessagesApiServer.start}. */
export interface MessagesApiServerOptions {
  /** Answers `/v1/messages` when no queued reply is left. @default a text reply "ok" */
  onMessages?: ReplyScript;
  /** Answers `/v1/messages/count_tokens` when no queued reply is left. @default about 4 chars a token */
  onCountTokens?: ReplyScript;
  /** Answers compaction requests when no queued reply is left. @default `{ type: "compaction" }` */
  onCompaction?: ReplyScript;
  /**
   * The preserved-thinking prefix check: `"enforced"` (an account created on or after
   * 2026-08-31), `"opt-in"` (an older account: only requests that set
   * `prefix_mismatch_behavior` are checked), `"off"` (a model without the check).
   * @default "enforced"
   */
  preservedThinking?: PreservedThinkingMode;
  /** Think when the request sets no `thinking`, as current models do. @default false */
  thinkByDefault?: boolean;
  /**
   * The model's context window in tokens (counted as {@link roughTokens} of `system`, `tools`
   * and `messages`): a `/v1/messages` request above it gets the API's 400 "prompt is too
   * long". @default no limit
   */
  contextWindow?: number;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** A rough token count of a request: about four characters a token. */
export function roughTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}

function requestTokens(body: unknown): number {
  const { system, tools, messages } = (body ?? {}) as Record<string, unknown>;
  return roughTokens({ system, tools, messages });
}

/** What the model reads of a request: what it is shown, after the server's context edits. */
interface ModelView {
  tokens: number;
  appliedEdits?: AppliedEdit[];
}

const defaultMessages: ReplyScript = () => ({ type: "message", text: "ok" });
const DEFAULT_THINKING = "Let me work out what the request needs before answering.";
const defaultCountTokens: ReplyScript = (request) => ({
  type: "tokens",
  inputTokens: requestTokens(request.body),
});

/** The loopback Messages API server. Start it with {@link MessagesApiServer.start}. */
export class MessagesApiServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #queues: Record<Script, ReplyScript[]> = {
    messages: [],
    count_tokens: [],
    compaction: [],
  };
  readonly #defaults: Record<Script, ReplyScript>;
  readonly #waiters = new Set<() => void>();
  readonly #thinking = new WeakMap<RecordedRequest, Extract<ThinkingVerdict, { ok: true }>>();
  readonly #views = new WeakMap<RecordedRequest, ModelView>();
  readonly #fingerprints = new Map<string, RequestFingerprint>();
  readonly #options: MessagesApiServerOptions;
  #messageCount = 0;
  #url = "";
  #closing = false;

  private constructor(options: MessagesApiServerOptions) {
    this.#options = options;
    this.#defaults = {
      messages: options.onMessages ?? defaultMessages,
      count_tokens: options.onCountTokens ?? defaultCountTokens,
      compaction: options.onCompaction ?? { type: "compaction" },
    };
    this.#server = createServer((request, response) => {
      void this.#handle(request, response);
    });
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static async start(options: MessagesApiServerOptions = {}): Promise<MessagesApiServer> {
    const server = new MessagesApiServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#server.once("error", reject);
      server.#server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.#server.address() as AddressInfo;
    server.#url = `http://127.0.0.1:${port}`;
    return server;
  }

  /** The base URL to give the SDK (`baseURL`). */
  get url(): string {
    return this.#url;
  }

  /** The requests one endpoint received, in order. */
  requestsTo(endpoint: Endpoint): RecordedRequest[] {
    return this.requests.filter((request) => request.endpoint === endpoint);
  }

  /**
   * Queues replies for the next requests to `endpoint` (`"compaction"`: the next compaction
   * requests), before its default answers again.
   */
  queue(endpoint: Script, ...replies: ReplyScript[]): this {
    this.#queues[endpoint].push(...replies);
    return this;
  }

  /** Sets how `endpoint` (or `"compaction"`) answers once its queue is empty. */
  setDefault(endpoint: Script, script: ReplyScript): this {
    this.#defaults[endpoint] = script;
    return this;
  }

  /** Resolves once `endpoint` has received `count` requests in all. */
  async waitForRequests(endpoint: Endpoint, count: number): Promise<RecordedRequest[]> {
    while (this.requestsTo(endpoint).length < count) {
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
    }
    return this.requestsTo(endpoint);
  }

  /** Closes the server and every open connection (hung responses included). */
  async close(): Promise<void> {
    this.#closing = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    let body: unknown = text;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: recorded as the raw text.
    }
    const path = request.url ?? "/";
    const pathname = path.split("?")[0];
    const endpoint: RecordedRequest["endpoint"] =
      pathname === "/v1/messages"
        ? "messages"
        : pathname === "/v1/messages/count_tokens"
          ? "count_tokens"
          : "unknown";
    let settle: (outcome: RequestOutcome) => void = () => {};
    const outcome = new Promise<RequestOutcome>((resolve) => {
      settle = resolve;
    });
    let dropped = false;
    response.on("close", () =>
      settle(
        response.writableFinished
          ? "answered"
          : dropped || this.#closing
            ? "dropped"
            : "closed_by_client",
      ),
    );
    const recorded: RecordedRequest = {
      endpoint,
      method: request.method ?? "GET",
      path,
      headers: flattenHeaders(request.headers),
      body,
      outcome,
    };
    this.requests.push(recorded);
    for (const wake of [...this.#waiters]) {
      this.#waiters.delete(wake);
      wake();
    }

    if (endpoint === "unknown" || request.method !== "POST") {
      this.#send(response, errorReply(404, `no route for ${request.method} ${pathname}`));
      return;
    }
    const problem = this.#requestProblem(recorded, endpoint);
    if (problem !== undefined) {
      this.#send(response, {
        type: "error",
        status: problem.status,
        message: problem.message,
        ...(problem.errorType === undefined ? {} : { errorType: problem.errorType }),
        ...(problem.errorCode === undefined ? {} : { errorCode: problem.errorCode }),
        headers: { "x-should-retry": "false" },
      });
      return;
    }
    const compaction = endpoint === "messages" && isCompactionRequest(body);
    const verdict = judgeThinking(recorded, {
      endpoint,
      // A compaction request writes a summary, not a turn: the summarizer reads the thinking,
      // and "If a condition doesn't hold, nothing fails when you compact".
      mode: compaction ? "off" : (this.#options.preservedThinking ?? "enforced"),
      thinkByDefault: this.#options.thinkByDefault ?? false,
    });
    if (!verdict.ok) {
      this.#send(response, errorReply(400, verdict.message));
      return;
    }
    const view = modelView(body, verdict.dropped);
    const window = this.#options.contextWindow;
    if (endpoint === "messages" && window !== undefined && view.tokens > window) {
      this.#send(
        response,
        errorReply(400, `prompt is too long: ${view.tokens} tokens > ${window} maximum`),
      );
      return;
    }
    this.#thinking.set(recorded, verdict);
    this.#views.set(recorded, view);
    const queue: Script = compaction ? "compaction" : endpoint;
    const script = this.#queues[queue].shift() ?? this.#defaults[queue];
    let reply: Reply;
    try {
      reply = typeof script === "function" ? await script(recorded) : script;
    } catch (error) {
      reply = errorReply(500, `script failed: ${error instanceof Error ? error.message : error}`);
    }
    this.#answer(response, reply, recorded, () => {
      dropped = true;
    });
  }

  /** What the API refuses a request for before the model sees it (compaction, system messages, context editing). */
  #requestProblem(request: RecordedRequest, endpoint: Endpoint): ApiProblem | undefined {
    const rules = { body: request.body, headers: request.headers };
    const compaction = endpoint === "messages" ? compactionProblem(rules) : undefined;
    if (compaction !== undefined) return compaction;
    const system = systemMessageProblem(rules);
    if (system !== undefined) return { status: 400, message: system };
    return contextManagementProblem(rules, {
      thinkByDefault: this.#options.thinkByDefault ?? false,
    });
  }

  /**
   * The response's `diagnostics` for a request that asks for them (compared with the request
   * its `previous_message_id` names), and the request remembered under its response's `id`.
   */
  #diagnostics(id: string, request: RecordedRequest | undefined): Record<string, unknown> {
    if (request === undefined) return {};
    const current = fingerprintOf(request.body);
    this.#fingerprints.set(id, current);
    if (!wantsDiagnostics(request.body)) return {};
    const previous = previousMessageId(request.body);
    return {
      diagnostics: diagnose(
        previous,
        previous === null ? undefined : this.#fingerprints.get(previous),
        current,
      ),
    };
  }

  #answer(
    response: ServerResponse,
    reply: Reply,
    request: RecordedRequest,
    markDropped: () => void,
  ): void {
    switch (reply.type) {
      case "drop":
        markDropped();
        response.socket?.destroy();
        return;
      case "hang":
        return;
      case "delay": {
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          if (!response.destroyed) this.#answer(response, reply.reply, request, markDropped);
        }, reply.ms);
        this.#timers.add(timer);
        response.on("close", () => {
          clearTimeout(timer);
          this.#timers.delete(timer);
        });
        return;
      }
      default:
        this.#send(response, reply, request);
    }
  }

  /**
   * A `message` response around `content`, numbered in order: the request's model, `usage` and
   * `extra` as given, then the request's diagnostics and input transformations, if any.
   */
  #messageBody(
    request: RecordedRequest | undefined,
    replyId: string | undefined,
    content: readonly unknown[],
    stopReason: string,
    usage: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> {
    this.#messageCount += 1;
    const verdict = request === undefined ? undefined : this.#thinking.get(request);
    const model = (request?.body as { model?: unknown } | undefined)?.model;
    const id = replyId ?? `msg_loopback_${this.#messageCount}`;
    return {
      id,
      type: "message",
      role: "assistant",
      model: typeof model === "string" ? model : "loopback",
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      container: null,
      usage,
      ...extra,
      ...this.#diagnostics(id, request),
      ...(verdict?.inputTransformations === undefined
        ? {}
        : { input_transformations: verdict.inputTransformations }),
    };
  }

  #send(response: ServerResponse, reply: Reply, request?: RecordedRequest): void {
    let status = 200;
    let body: unknown;
    let headers: Record<string, string> = {};
    switch (reply.type) {
      case "message": {
        const verdict = request === undefined ? undefined : this.#thinking.get(request);
        const view = request === undefined ? undefined : this.#views.get(request);
        const content = signReplyContent(
          request?.body,
          withLeadingThinking(
            reply.content ?? [{ type: "text", text: reply.text ?? "ok" }],
            reply,
            verdict?.thinking ?? false,
          ),
          verdict?.previous ?? null,
        );
        body = this.#messageBody(
          request,
          reply.id,
          content,
          reply.stopReason ??
            (content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"),
          {
            input_tokens: view?.tokens ?? requestTokens(request?.body),
            output_tokens: roughTokens(content),
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            ...reply.usage,
          },
          view?.appliedEdits === undefined
            ? {}
            : { context_management: { applied_edits: view.appliedEdits } },
        );
        break;
      }
      case "compaction": {
        const view = request === undefined ? undefined : this.#views.get(request);
        const stopReason = reply.stopReason ?? "compaction";
        const summary = reply.summary ?? defaultSummary(request?.body);
        const content =
          stopReason === "compaction"
            ? [
                {
                  type: "compaction",
                  content: summary,
                  signature: signCompaction(request?.body, summary),
                },
              ]
            : [];
        body = this.#messageBody(request, reply.id, content, stopReason, {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          iterations: [
            {
              type: "compaction",
              input_tokens: view?.tokens ?? requestTokens(request?.body),
              output_tokens: content.length > 0 ? roughTokens(summary) : 0,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              cache_creation: null,
              ...reply.iteration,
            },
          ],
        });
        break;
      }
      case "tokens":
        body = { input_tokens: reply.inputTokens };
        break;
      case "error":
        status = reply.status;
        headers = { "retry-after-ms": "1", ...reply.headers };
        body = {
          type: "error",
          error: {
            type: reply.errorType ?? ERROR_TYPES[reply.status] ?? "api_error",
            message: reply.message ?? `loopback error ${reply.status}`,
            ...(reply.errorCode === undefined ? {} : { details: { error_code: reply.errorCode } }),
          },
        };
        break;
      case "json":
        status = reply.status;
        headers = reply.headers ?? {};
        body = reply.body;
        break;
      default:
        return;
    }
    const text = JSON.stringify(body);
    response.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "request-id": `req_loopback_${this.requests.length}`,
      ...headers,
    });
    response.end(text);
  }
}

/**
 * What the model reads of a request: the thinking blocks the check dropped left out, turn-scoped
 * system messages no longer shown left out, then the request's context edits applied.
 */
function modelView(
  body: unknown,
  dropped: readonly { messageIndex: number; blockIndex: number }[],
): ModelView {
  const visible = withoutBlocks(body, dropped) as Record<string, unknown> | undefined;
  const messages = Array.isArray(visible?.messages) ? visible.messages : [];
  const rendered = { ...visible, messages: renderedMessages(messages) };
  if (visible?.context_management === undefined || visible.context_management === null) {
    return { tokens: requestTokens(rendered) };
  }
  const edited = applyContextEdits(rendered, requestTokens);
  return { tokens: requestTokens(edited.body), appliedEdits: edited.appliedEdits };
}

/** The reply's content with its leading thinking (and redacted thinking) blocks. */
function withLeadingThinking(
  content: Record<string, unknown>[],
  reply: Extract<Reply, { type: "message" }>,
  requestThinks: boolean,
): Record<string, unknown>[] {
  if (content.some((block) => block.type === "thinking" || block.type === "redacted_thinking")) {
    return content;
  }
  const lead: Record<string, unknown>[] = [];
  const text = reply.thinking ?? (requestThinks ? DEFAULT_THINKING : false);
  if (text !== false) lead.push({ type: "thinking", thinking: text });
  if (reply.redactedThinking !== undefined) {
    lead.push({ type: "redacted_thinking", hidden: reply.redactedThinking });
  }
  return [...lead, ...content];
}

/** The body without the thinking blocks the model is not shown (for the token count). */
function withoutBlocks(
  body: unknown,
  dropped: readonly { messageIndex: number; blockIndex: number }[],
): unknown {
  if (dropped.length === 0) return body;
  const { messages } = body as { messages: { content: unknown }[] };
  return {
    ...(body as object),
    messages: messages.map((message, messageIndex) =>
      Array.isArray(message.content)
        ? {
            ...message,
            content: message.content.filter(
              (_, blockIndex) =>
                !dropped.some(
                  (block) => block.messageIndex === messageIndex && block.blockIndex === blockIndex,
                ),
            ),
          }
        : message,
    ),
  };
}

function errorReply(status: number, message: string): Reply {
  return { type: "error", status, message, headers: { "x-should-retry": "false" } };
}

function flattenHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
