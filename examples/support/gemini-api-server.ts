import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  enforcesSignatures,
  geminiContentsProblem,
  type IssuedSignatures,
  type WireContent,
  type WirePart,
} from "./gemini-rules.js";

/**
 * A loopback HTTP server that speaks enough of the Gemini API for the real `@google/genai` SDK
 * (`new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } })`):
 * `POST /v1beta/models/{model}:generateContent`. It records every request, answers from a
 * script, and refuses, with the API's 400 `INVALID_ARGUMENT` in its words, what the API refuses:
 * the contents rules of gemini-rules.ts (alternation, function call and response turns, Gemini
 * 3's thought signatures), and a prompt above `contextWindow` (R: "The input token count (N)
 * exceeds the maximum number of tokens allowed (M)."). On Gemini 3 and later it signs each reply
 * as the API does (D): the first function call of a reply, or its last part when it calls none.
 * Its usage counts the prompt by a rough estimate (4 characters a token) and, as implicit caching
 * does (D: ai.google.dev/gemini-api/docs/caching, "automatically passes on cost savings if your
 * request hits a cache"), reports as `cachedContentTokenCount` the longest prefix (system
 * instruction, tools, whole contents) an earlier request to the same model sent, when it reaches
 * `minCacheTokens`.
 */

/** One request as the server received it. */
export interface RecordedGeminiRequest {
  path: string;
  /** The model named in the path (`gemini-3-flash-preview`). */
  model: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** What the script answers with: the candidate's parts, or an API error. */
export type GeminiReply =
  | { parts: WirePart[]; finishReason?: string; thoughtsTokens?: number }
  | { error: { status: number; message: string } };

/** Writes a reply to a request. */
export type GeminiScript = (request: RecordedGeminiRequest) => GeminiReply | Promise<GeminiReply>;

/** Options of {@link GeminiApiServer.start}. */
export interface GeminiApiServerOptions {
  /** Refuse prompts above this many tokens. @default no limit */
  contextWindow?: number;
  /** The smallest prefix implicit caching reads. @default 1024 */
  minCacheTokens?: number;
}

/** Rough tokens: 4 characters each, as the library estimates. */
export function roughTokens(value: unknown): number {
  return value === undefined ? 0 : Math.ceil(JSON.stringify(value).length / 4);
}

/** JSON with object keys sorted, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A request's prompt as the cache sees it: its head (system, tools) and each content. */
interface Prompt {
  model: string;
  head: string;
  headTokens: number;
  contents: string[];
  contentTokens: number[];
}

function promptOf(model: string, body: Record<string, unknown>): Prompt {
  const contents = Array.isArray(body["contents"]) ? (body["contents"] as unknown[]) : [];
  return {
    model,
    head: canonical([body["systemInstruction"] ?? null, body["tools"] ?? null]),
    headTokens: roughTokens(body["systemInstruction"]) + roughTokens(body["tools"]),
    contents: contents.map(canonical),
    contentTokens: contents.map(roughTokens),
  };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** The loopback Gemini API. */
export class GeminiApiServer {
  readonly requests: RecordedGeminiRequest[] = [];
  /** Requests refused, with the API's message (the client saw a 400). */
  readonly refusals: string[] = [];
  /** The signatures this server issued. */
  readonly issued: IssuedSignatures = new Map();
  /** Answers `generateContent`; replace it between requests. */
  script: GeminiScript;
  contextWindow: number | undefined;
  readonly minCacheTokens: number;
  readonly #prompts: Prompt[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #counter = 0;

  private constructor(script: GeminiScript, options: GeminiApiServerOptions) {
    this.script = script;
    this.contextWindow = options.contextWindow;
    this.minCacheTokens = options.minCacheTokens ?? 1024;
    this.#server = createServer((request, response) => {
      void this.#handle(request, response);
    });
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Starts a server on a free loopback port. */
  static async start(
    script: GeminiScript,
    options: GeminiApiServerOptions = {},
  ): Promise<GeminiApiServer> {
    const server = new GeminiApiServer(script, options);
    await new Promise<void>((resolve) => server.#server.listen(0, "127.0.0.1", () => resolve()));
    return server;
  }

  /** The base URL to hand the SDK (`httpOptions.baseUrl`). */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A signature as the API issues one, registered for the part it signs. */
  sign(functionName?: string): string {
    this.#counter += 1;
    const signature = Buffer.from(`sig-${this.#counter}-${functionName ?? "part"}`).toString(
      "base64",
    );
    this.issued.set(signature, functionName === undefined ? {} : { functionName });
    return signature;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<
      string,
      unknown
    >;
    const path = request.url ?? "";
    const match = /^\/v1beta\/models\/([^:/]+):generateContent/.exec(path);
    if (match === null) return send(response, 404, apiError(404, "Not found", "NOT_FOUND"));
    const model = decodeURIComponent(match[1]!);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([key, value]) => [key, String(value)]),
    );
    const recorded: RecordedGeminiRequest = { path, model, headers, body };
    this.requests.push(recorded);
    const refusal = this.#refusal(model, body);
    if (refusal !== undefined) {
      this.refusals.push(refusal);
      return send(response, 400, apiError(400, refusal, "INVALID_ARGUMENT"));
    }
    const reply = await this.script(recorded);
    if ("error" in reply)
      return send(response, reply.error.status, apiError(reply.error.status, reply.error.message));
    send(response, 200, this.#respond(model, body, reply));
  }

  #refusal(model: string, body: Record<string, unknown>): string | undefined {
    const problem = geminiContentsProblem(body["contents"], { model, issued: this.issued });
    if (problem !== undefined) return problem;
    const prompt = promptOf(model, body);
    const tokens = prompt.headTokens + sum(prompt.contentTokens);
    if (this.contextWindow !== undefined && tokens > this.contextWindow)
      return `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${this.contextWindow}).`;
    return undefined;
  }

  /** Signs the reply (Gemini 3 and later): its first function call, or its last part. */
  #signed(model: string, parts: WirePart[]): WirePart[] {
    const out = parts.map((part) => ({ ...part }));
    for (const part of out) {
      if (typeof part["thoughtSignature"] === "string") {
        const call = part["functionCall"] as { name?: string } | undefined;
        this.issued.set(
          part["thoughtSignature"],
          call?.name === undefined ? {} : { functionName: call.name },
        );
      }
    }
    if (!enforcesSignatures(model) || out.length === 0) return out;
    const call = out.find((part) => part["functionCall"] !== undefined);
    const target = call ?? out.at(-1)!;
    if (target["thoughtSignature"] === undefined) {
      const name = (target["functionCall"] as { name?: string } | undefined)?.name;
      target["thoughtSignature"] = this.sign(name);
    }
    return out;
  }

  /** The cached prefix: the longest an earlier request to the model sent, when long enough. */
  #cachedTokens(prompt: Prompt): number {
    let best = 0;
    for (const earlier of this.#prompts) {
      if (earlier.model !== prompt.model || earlier.head !== prompt.head) continue;
      let shared = 0;
      while (
        shared < earlier.contents.length &&
        shared < prompt.contents.length &&
        earlier.contents[shared] === prompt.contents[shared]
      )
        shared += 1;
      const tokens =
        shared === 0 ? 0 : prompt.headTokens + sum(prompt.contentTokens.slice(0, shared));
      best = Math.max(best, tokens);
    }
    return best >= this.minCacheTokens ? best : 0;
  }

  #respond(
    model: string,
    body: Record<string, unknown>,
    reply: { parts: WirePart[]; finishReason?: string; thoughtsTokens?: number },
  ): Record<string, unknown> {
    const prompt = promptOf(model, body);
    const cached = this.#cachedTokens(prompt);
    this.#prompts.push(prompt);
    const parts = this.#signed(model, reply.parts);
    const thoughts = parts.filter((part) => part["thought"] === true);
    const promptTokens = prompt.headTokens + sum(prompt.contentTokens);
    const candidates = roughTokens(parts.filter((part) => part["thought"] !== true));
    const thoughtsTokens =
      reply.thoughtsTokens ?? roughTokens(thoughts.length > 0 ? thoughts : undefined);
    this.#counter += 1;
    return {
      candidates: [
        { content: { role: "model", parts }, finishReason: reply.finishReason ?? "STOP", index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: promptTokens,
        candidatesTokenCount: candidates,
        ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
        ...(thoughtsTokens > 0 ? { thoughtsTokenCount: thoughtsTokens } : {}),
        totalTokenCount: promptTokens + candidates + thoughtsTokens,
      },
      modelVersion: model,
      responseId: `resp-${this.#counter}`,
    };
  }
}

/** The API's error body. */
function apiError(code: number, message: string, status = "INTERNAL"): Record<string, unknown> {
  return { error: { code, message, status } };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

export type { IssuedSignatures, WireContent, WirePart };
