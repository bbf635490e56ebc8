import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** Answers one request: its JSON body read, the response to write with {@link sendJson}. */
export type LoopbackHandler = (
  request: IncomingMessage,
  body: Record<string, unknown>,
  response: ServerResponse,
) => Promise<void> | void;

/**
 * An HTTP server on a free loopback port for the stand-in APIs: it reads each request's JSON
 * body for the handler, and closes its open connections with it.
 */
export class LoopbackHttp {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(handler: LoopbackHandler) {
    this.#server = createServer((request, response) => {
      void readJson(request).then((body) => handler(request, body, response));
    });
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening on a free loopback port. */
  static async listen(handler: LoopbackHandler): Promise<LoopbackHttp> {
    const http = new LoopbackHttp(handler);
    await new Promise<void>((resolve) => http.#server.listen(0, "127.0.0.1", () => resolve()));
    return http;
  }

  /** The base URL to hand an SDK (`…/v1`). */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * What every stand-in API server shares: its HTTP server, the base URL, a counter for the ids
 * it issues, and `close`. A subclass starts it with `listen(handler)`.
 */
export class LoopbackApi {
  #http: LoopbackHttp | undefined;
  #counter = 0;

  protected async listen(handler: LoopbackHandler): Promise<void> {
    this.#http = await LoopbackHttp.listen(handler);
  }

  /** The base URL to hand the SDK (`…/v1`). */
  get url(): string {
    return this.#http?.url ?? "";
  }

  /** A fresh id of a kind (`call_3`). */
  id(kind: string): string {
    this.#counter += 1;
    return `${kind}_${this.#counter}`;
  }

  async close(): Promise<void> {
    await this.#http?.close();
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
}

/** Writes a JSON response. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** Rough tokens of a JSON value: 4 characters each, as the library estimates. */
export function roughTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}
