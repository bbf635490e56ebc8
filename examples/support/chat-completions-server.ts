import { createHash, type Hash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  chatMessagesProblem,
  type ReasoningRule,
  type RequestProblem,
  type RuleState,
} from "./chat-completions-rules.js";
import { LoopbackApi, roughTokens, sendJson as send } from "./loopback-http.js";

/**
 * A loopback HTTP server that speaks enough of the Chat Completions API for the real `openai`
 * SDK (`new OpenAI({ baseURL: server.url, apiKey: "test" })`): `POST /v1/chat/completions`. It
 * records every request, answers from a script, refuses with a 400 in the API's words what
 * the API refuses (chat-completions-rules.ts), and the request over its window as OpenAI does
 * (D/R: "This model's maximum context length is N tokens. However, your messages resulted in M
 * tokens. Please reduce the length of the messages.", code `context_length_exceeded`). Its
 * usage counts as cached the longest prefix of whole messages (tools first) an earlier
 * request sent, as a host's prompt cache reads it.
 */

/** One request as the server received it. */
export interface RecordedChatRequest {
  path: string;
  body: Record<string, unknown>;
}

/** A tool call the script makes. */
export interface ScriptedToolCall {
  name: string;
  arguments?: string;
  /** The call's id (a host numbering each reply's calls sends `call_0` every time). @default a new one */
  id?: string;
}

/** What the script answers with. */
export interface ScriptedChatReply {
  content?: string | null;
  toolCalls?: ScriptedToolCall[];
  /** Sent as `reasoning_content`, and required back with the calls on a `required-for-tool-calls` host. */
  reasoning?: string;
  refusal?: string;
  /** More fields of the message (`reasoning_details`, …). */
  fields?: Record<string, unknown>;
  /** The choice's `finish_reason`. @default `"tool_calls"` with calls, else `"stop"` */
  finishReason?: string;
}

/** Writes a reply; `ids` makes ids of a kind (`call`). */
export type ChatScript = (
  request: RecordedChatRequest,
  ids: (kind: string) => string,
) => ScriptedChatReply | Promise<ScriptedChatReply>;

export { roughTokens };

/**
 * The seconds of a WAV's base64 `data`, read from its header (its byte rate, at byte 28), or
 * `undefined` for anything else (counted as its text).
 */
function wavSeconds(data: unknown): number | undefined {
  if (typeof data !== "string") return undefined;
  const head = Buffer.from(data.slice(0, 64), "base64");
  if (head.length < 44 || head.toString("latin1", 8, 12) !== "WAVE") return undefined;
  const byteRate = head.readUInt32LE(28);
  return byteRate === 0 ? undefined : (Buffer.byteLength(data, "base64") - 44) / byteRate;
}

/**
 * A message's tokens: its JSON at 4 characters a token, but a user's WAV `input_audio` part by
 * its duration, at 10 tokens a second (D: "Audio tokens in user messages are 1 token per 100 ms
 * of audio", the Realtime API's cost guide), and the part's other fields as text.
 */
function messageTokens(message: unknown): { tokens: number; audio: number } {
  const content = (message as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return { tokens: roughTokens(message), audio: 0 };
  let audio = 0;
  const counted = content.map((part) => {
    const input = (part as { input_audio?: { data?: unknown } } | null)?.input_audio;
    const seconds = wavSeconds(input?.data);
    if (seconds === undefined) return part;
    audio += Math.ceil(seconds * 10);
    return { ...(part as object), input_audio: { ...input, data: "" } };
  });
  if (audio === 0) return { tokens: roughTokens(message), audio: 0 };
  return { tokens: roughTokens({ ...(message as object), content: counted }) + audio, audio };
}

/** The tokens of a request's messages and tools, the per-prefix hashes, and the cached part. */
function promptOf(body: Record<string, unknown>, seen: Set<string>) {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as unknown[]) : [];
  const hash: Hash = createHash("sha256").update(JSON.stringify(body["tools"] ?? []));
  let tokens = body["tools"] === undefined ? 0 : roughTokens(body["tools"]);
  let audio = 0;
  let cached = 0;
  const prefixes: string[] = [];
  for (const message of messages) {
    hash.update(JSON.stringify(message));
    const counted = messageTokens(message);
    tokens += counted.tokens;
    audio += counted.audio;
    const prefix = hash.copy().digest("hex");
    if (seen.has(prefix)) cached = tokens;
    prefixes.push(prefix);
  }
  return { tokens, audio, cached, prefixes };
}

/** The loopback Chat Completions API. */
export class ChatCompletionsServer extends LoopbackApi {
  readonly requests: RecordedChatRequest[] = [];
  /** Requests refused, with why (the client saw a 400). */
  readonly refusals: RequestProblem[] = [];
  /** Answers `POST /v1/chat/completions`; replace it between requests. */
  script: ChatScript;
  /** When set, a request whose messages and tools take more tokens is refused for length. */
  contextWindow: number | undefined;
  readonly #state: RuleState = { reasoning: "ignored", issuedReasoning: new Map() };
  readonly #seen = new Set<string>();

  private constructor(script: ChatScript, reasoning: ReasoningRule) {
    super();
    this.script = script;
    this.#state.reasoning = reasoning;
  }

  /** Starts a server on a free loopback port; `reasoning` is the host's rule for reasoning fields. */
  static async start(
    script: ChatScript,
    options: { reasoning?: ReasoningRule; contextWindow?: number } = {},
  ): Promise<ChatCompletionsServer> {
    const server = new ChatCompletionsServer(script, options.reasoning ?? "ignored");
    server.contextWindow = options.contextWindow;
    await server.listen((request, body, response) => server.#handle(request, body, response));
    return server;
  }

  async #handle(
    request: IncomingMessage,
    body: Record<string, unknown>,
    response: ServerResponse,
  ): Promise<void> {
    const recorded = { path: request.url ?? "", body };
    this.requests.push(recorded);
    if (!recorded.path.startsWith("/v1/chat/completions")) {
      return send(response, 404, {
        error: { message: "Not found", type: "invalid_request_error" },
      });
    }
    const problem = chatMessagesProblem(body["messages"], this.#state);
    if (problem !== undefined) return this.#refuse(response, problem, null);
    const prompt = promptOf(body, this.#seen);
    if (this.contextWindow !== undefined && prompt.tokens > this.contextWindow) {
      const message = `This model's maximum context length is ${this.contextWindow} tokens. However, your messages resulted in ${prompt.tokens} tokens. Please reduce the length of the messages.`;
      return this.#refuse(response, { message, param: "messages" }, "context_length_exceeded");
    }
    for (const prefix of prompt.prefixes) this.#seen.add(prefix);
    const reply = await this.script(recorded, (kind) => this.id(kind));
    send(response, 200, this.#completion(body, reply, prompt));
  }

  #refuse(response: ServerResponse, problem: RequestProblem, code: string | null): void {
    this.refusals.push(code === null ? problem : { ...problem, message: code });
    send(response, 400, {
      error: {
        message: problem.message,
        type: "invalid_request_error",
        param: problem.param,
        code,
      },
    });
  }

  #completion(
    body: Record<string, unknown>,
    reply: ScriptedChatReply,
    prompt: { tokens: number; audio: number; cached: number },
  ): Record<string, unknown> {
    const calls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? this.id("call"),
      type: "function",
      function: { name: call.name, arguments: call.arguments ?? "{}" },
    }));
    if (reply.reasoning !== undefined) {
      for (const call of calls) this.#state.issuedReasoning.set(call.id, reply.reasoning);
    }
    const message: Record<string, unknown> = {
      role: "assistant",
      content: reply.content === undefined ? (calls.length > 0 ? null : "ok") : reply.content,
      refusal: reply.refusal ?? null,
      annotations: [],
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(reply.reasoning === undefined ? {} : { reasoning_content: reply.reasoning }),
      ...reply.fields,
    };
    const output = roughTokens(message);
    return {
      id: this.id("chatcmpl"),
      object: "chat.completion",
      created: 1_767_225_600,
      model: body["model"],
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
        },
      ],
      usage: {
        prompt_tokens: prompt.tokens,
        completion_tokens: output,
        total_tokens: prompt.tokens + output,
        prompt_tokens_details: { cached_tokens: prompt.cached, audio_tokens: prompt.audio },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    };
  }
}
