import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { isCompactionRequest } from "../../src/testing/anthropic-rules/compaction.js";
import { jsonTextProblem } from "../../src/testing/anthropic-rules/json-text.js";
import { requestTokens } from "../../src/testing/anthropic-rules/responses.js";
import {
  diagnose,
  fingerprintOf,
  previousMessageId,
  type RequestFingerprint,
  wantsDiagnostics,
} from "./cache-diagnostics.js";
import { checkRequest, errorReply } from "./loopback-checks.js";
import {
  type AcceptedThinking,
  compactionParts,
  errorAnswer,
  type HttpAnswer,
  type ModelView,
  messageParts,
  type ResponseParts,
} from "./loopback-replies.js";
import { messageEvents } from "./message-stream.js";
import type {
  Endpoint,
  MessagesApiServerOptions,
  RecordedRequest,
  Reply,
  ReplyScript,
  RequestOutcome,
  Script,
} from "./messages-api-types.js";

export { roughTokens } from "../../src/testing/anthropic-rules/responses.js";
export type * from "./messages-api-types.js";

/**
 * A loopback HTTP server that speaks enough of the Anthropic Messages API for the real
 * `@anthropic-ai/sdk` client to talk to it (`new Anthropic({ baseURL: server.url })`):
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`. It records every request
 * (headers and parsed JSON body) and answers from a script: messages, token counts, API
 * errors (4xx, 429, 5xx), dropped connections, slow or hung responses.
 *
 * It plays a model with preserved thinking (the rules, with their sources, are in
 * `src/testing/anthropic-rules/`, which `AnthropicStandIn` runs too; `loopback-checks.ts` runs
 * them here): while the request thinks (`thinking: { type: "enabled" | "adaptive" }`, or no
 * `thinking` on a server started with `thinkByDefault`) a reply starts with a signed
 * `thinking` block, and every `thinking` / `redacted_thinking` block sent back is checked
 * against the prefix it was produced after: a 400 in the API's words, or dropped and listed
 * in `input_transformations` under `thinking.block_binding.prefix_mismatch_behavior:
 * "drop_block"`. It also refuses, as the API does, a request whose `messages` break the API's
 * structure rules (`anthropic-rules/request.ts`: tool_use/tool_result pairing, the first message
 * from the user, non-empty messages; consecutive turns of one role merged) and a body whose text
 * holds a lone surrogate escape (`anthropic-rules/json-text.ts`, which `JSON.parse` accepts). A
 * request the checks reject never reaches the script.
 *
 * It also speaks on-demand compaction (`anthropic-rules/compaction.ts`: a request with a
 * top-level `compaction` is answered with one signed `compaction` block from the `compaction` script,
 * and blocks sent back are checked), mid-conversation `role: "system"` messages
 * (`system-messages.ts`), server-side context editing (`context-editing.ts`: the model reads
 * the edited request, the response lists `context_management.applied_edits`) and cache
 * diagnostics (`cache-diagnostics.ts`). A request with `stream: true` gets its message as
 * server-sent events (`message-stream.ts`).
 *
 * Used by the offline stand-in of `examples/anthropic-agent.ts` and by the adapter's tests.
 */

const defaultMessages: ReplyScript = () => ({ type: "message", text: "ok" });
const ENDPOINTS = new Map<string | undefined, Endpoint>([
  ["/v1/messages", "messages"],
  ["/v1/messages/count_tokens", "count_tokens"],
]);
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
  readonly #thinking = new WeakMap<RecordedRequest, AcceptedThinking>();
  readonly #dropped = new WeakSet<ServerResponse>();
  readonly #views = new WeakMap<RecordedRequest, ModelView>();
  /** The 400 a request's body text gets before it is read as JSON (a lone surrogate escape). */
  readonly #invalidJson = new WeakMap<RecordedRequest, string>();
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
    const recorded = await this.#record(request, response);
    const { endpoint } = recorded;
    if (endpoint === "unknown" || request.method !== "POST") {
      const pathname = recorded.path.split("?")[0];
      this.#send(response, errorReply(404, `no route for ${request.method} ${pathname}`));
      return;
    }
    const invalidJson = this.#invalidJson.get(recorded);
    if (invalidJson !== undefined) {
      this.#send(response, errorReply(400, invalidJson));
      return;
    }
    const checked = checkRequest(recorded, endpoint, this.#options);
    if ("refusal" in checked) {
      this.#send(response, checked.refusal);
      return;
    }
    this.#thinking.set(recorded, checked.thinking);
    this.#views.set(recorded, checked.view);
    const compaction = endpoint === "messages" && isCompactionRequest(recorded.body);
    const queue: Script = compaction ? "compaction" : endpoint;
    const script = this.#queues[queue].shift() ?? this.#defaults[queue];
    let reply: Reply;
    try {
      reply = typeof script === "function" ? await script(recorded) : script;
    } catch (error) {
      reply = errorReply(500, `script failed: ${error instanceof Error ? error.message : error}`);
    }
    this.#answer(response, reply, recorded, () => {
      this.#dropped.add(response);
    });
  }

  /** Reads and records a request (its outcome settles when the exchange ends), waking waiters. */
  async #record(request: IncomingMessage, response: ServerResponse): Promise<RecordedRequest> {
    const text = await readBody(request);
    let body: unknown = text;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: recorded as the raw text.
    }
    const path = request.url ?? "/";
    const pathname = path.split("?")[0];
    const outcome = new Promise<RequestOutcome>((resolve) => {
      response.on("close", () =>
        resolve(
          response.writableFinished
            ? response.statusCode < 400
              ? "answered"
              : "refused"
            : this.#dropped.has(response) || this.#closing
              ? "dropped"
              : "closed_by_client",
        ),
      );
    });
    const recorded: RecordedRequest = {
      endpoint: ENDPOINTS.get(pathname) ?? "unknown",
      method: request.method ?? "GET",
      path,
      headers: flattenHeaders(request.headers),
      body,
      outcome,
    };
    const invalidJson = jsonTextProblem(text);
    if (invalidJson !== undefined) this.#invalidJson.set(recorded, invalidJson);
    this.requests.push(recorded);
    for (const wake of [...this.#waiters]) {
      this.#waiters.delete(wake);
      wake();
    }
    return recorded;
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
   * A `message` response around a reply's parts, numbered in order: the request's model, the
   * parts, then the request's diagnostics and input transformations, if any.
   */
  #messageBody(
    request: RecordedRequest | undefined,
    replyId: string | undefined,
    parts: ResponseParts,
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
      content: parts.content,
      stop_reason: parts.stopReason,
      stop_sequence: null,
      container: null,
      usage: parts.usage,
      ...parts.extra,
      ...this.#diagnostics(id, request),
      ...(verdict?.inputTransformations === undefined
        ? {}
        : { input_transformations: verdict.inputTransformations }),
    };
  }

  /** The status, headers and body a reply is answered with (`undefined` for drop, hang, delay). */
  #httpAnswer(reply: Reply, request: RecordedRequest | undefined): HttpAnswer | undefined {
    const view = request === undefined ? undefined : this.#views.get(request);
    const ok = (body: unknown): HttpAnswer => ({ status: 200, headers: {}, body });
    switch (reply.type) {
      case "message": {
        const verdict = request === undefined ? undefined : this.#thinking.get(request);
        const parts = messageParts(reply, request?.body, verdict, view);
        return ok(this.#messageBody(request, reply.id, parts));
      }
      case "compaction":
        return ok(
          this.#messageBody(request, reply.id, compactionParts(reply, request?.body, view)),
        );
      case "tokens":
        return ok({ input_tokens: reply.inputTokens });
      case "error":
        return errorAnswer(reply);
      case "json":
        return { status: reply.status, headers: reply.headers ?? {}, body: reply.body };
      default:
        return undefined;
    }
  }

  #send(response: ServerResponse, reply: Reply, request?: RecordedRequest): void {
    const answer = this.#httpAnswer(reply, request);
    if (answer === undefined) return;
    const body = answer.body as { type?: unknown } | undefined;
    if (answer.status === 200 && body?.type === "message" && wantsStream(request?.body)) {
      // A request with `stream: true` gets the same message as server-sent events.
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "request-id": `req_loopback_${this.requests.length}`,
        ...answer.headers,
      });
      response.end(messageEvents(answer.body as Record<string, unknown>));
      return;
    }
    const text = JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "request-id": `req_loopback_${this.requests.length}`,
      ...answer.headers,
    });
    response.end(text);
  }
}

function wantsStream(body: unknown): boolean {
  return (body as { stream?: unknown } | undefined)?.stream === true;
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
