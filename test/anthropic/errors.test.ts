import { inspect } from "node:util";
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  type APIError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AnthropicLlmClient } from "../../src/anthropic/index.js";
import {
  AgentSession,
  CompactionError,
  type CompactionEvent,
  LLMCompactor,
  type LLMCompactorConfig,
} from "../../src/index.js";
import type { Timers } from "../../src/testing/index.js";
import { MessagesApiServer, type Reply } from "../support/messages-api-server.js";

/**
 * Summariser failures through the real SDK: whatever the API or the network does, the
 * session's compaction fails as a CompactionError with the SDK's error as `cause`, the
 * conversation is left as it was, and the API key appears nowhere.
 */

const API_KEY = "sk-ant-api03-errors-SECRET-ABCDEFGHIJ0123";

let server: MessagesApiServer;

beforeEach(async () => {
  server = await MessagesApiServer.start();
});

afterEach(async () => {
  await server.close();
});

function sdk(options: ConstructorParameters<typeof Anthropic>[0] = {}): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0, ...options });
}

function sessionWith(
  client: Anthropic,
  config: Partial<LLMCompactorConfig> = {},
  onEvent?: (event: CompactionEvent) => void,
): AgentSession {
  const session = new AgentSession({
    contextLimit: 10_000,
    sessionId: "s",
    compactor: false,
    llmCompactor: new LLMCompactor(new AnthropicLlmClient({ client, model: "claude-haiku-4-5" }), {
      keepRecentTurns: 1,
      ...config,
    }),
    ...(onEvent ? { onEvent } : {}),
  });
  session.addUserText("Rename the parser module.");
  session.addAssistant([
    { type: "text", text: `Renamed to grammar.ts. ${"Checked every importer. ".repeat(60)}` },
  ]);
  session.addUserText("Now update the imports.");
  session.addAssistant([{ type: "text", text: "Updated 4 imports." }]);
  return session;
}

async function failure(promise: Promise<unknown>): Promise<CompactionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CompactionError.isInstance(error))
    throw new Error(`expected a CompactionError, got ${String(error)}`);
  return error;
}

describe("summariser failures through the SDK", () => {
  it.each<[string, Reply, number, number, new (...args: never[]) => Error, number | undefined]>([
    [
      "400 invalid request (not retried)",
      { type: "error", status: 400 },
      2,
      1,
      BadRequestError,
      400,
    ],
    [
      "429 on every try (after the SDK's retries)",
      { type: "error", status: 429 },
      2,
      3,
      RateLimitError,
      429,
    ],
    ["500 on every try", { type: "error", status: 500 }, 1, 2, InternalServerError, 500],
    ["529 overloaded on every try", { type: "error", status: 529 }, 1, 2, InternalServerError, 529],
    ["a dropped connection", { type: "drop" }, 0, 1, APIConnectionError, undefined],
  ])(
    "%s -> llm_error with the SDK error as cause",
    async (_name, reply, maxRetries, requests, cause, status) => {
      server.setDefault("messages", reply);
      const session = sessionWith(sdk({ maxRetries }));
      const before = [...session.messages];
      const error = await failure(session.forceCompact());
      expect(error.code).toBe("llm_error");
      expect(error.cause).toBeInstanceOf(cause);
      expect((error.cause as APIError).status).toBe(status);
      expect(error.message).toContain((error.cause as Error).message);
      expect(server.requestsTo("messages")).toHaveLength(requests);
      expect(session.messages).toEqual(before);
    },
  );

  it("succeeds when the SDK's own retries get past a 429 and a 503", async () => {
    server.queue("messages", { type: "error", status: 429 }, { type: "error", status: 503 });
    server.setDefault("messages", { type: "message", text: "They renamed the parser." });
    const session = sessionWith(sdk({ maxRetries: 2 }));
    const result = await session.forceCompact();
    expect(result.turnsCompacted).toBe(1);
    expect(server.requestsTo("messages")).toHaveLength(3);
    expect(session.messages[0]?.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("They renamed the parser."),
    });
  });

  it("times out a hung response (injected timer) and aborts the HTTP request", async () => {
    server.setDefault("messages", { type: "hang" });
    let fire: (() => void) | undefined;
    const timers: Timers = {
      setTimeout: ((callback: () => void) => {
        fire = callback;
        return 0;
      }) as unknown as Timers["setTimeout"],
      clearTimeout: (() => {}) as unknown as Timers["clearTimeout"],
    };
    const session = sessionWith(sdk(), { timers, summaryTimeoutMs: 60_000 });
    const pending = failure(session.forceCompact());
    const [request] = await server.waitForRequests("messages", 1);
    fire?.();
    const error = await pending;
    expect(error.code).toBe("timeout");
    await expect(request!.outcome).resolves.toBe("closed_by_client");
    expect(session.messages).toHaveLength(4);
  });

  it("times out a hung response with a real 500 ms deadline", async () => {
    server.setDefault("messages", { type: "hang" });
    // Long enough for the request to reach the server on a loaded machine (at 50 ms, under load,
    // the deadline came first, and there was no request whose close to check).
    const session = sessionWith(sdk(), { summaryTimeoutMs: 500 });
    const error = await failure(session.forceCompact());
    expect(error.code).toBe("timeout");
    await expect(server.requestsTo("messages")[0]!.outcome).resolves.toBe("closed_by_client");
  });

  it("reports the SDK's own request timeout on a slow response as llm_error", async () => {
    server.setDefault("messages", { type: "delay", ms: 10_000, reply: { type: "message" } });
    const session = sessionWith(sdk({ timeout: 25 }));
    const error = await failure(session.forceCompact());
    expect(error.code).toBe("llm_error");
    expect(error.cause).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it("answers a slow response that arrives within the deadline", async () => {
    server.setDefault("messages", {
      type: "delay",
      ms: 5,
      reply: { type: "message", text: "Slow but fine." },
    });
    const session = sessionWith(sdk());
    await expect(session.forceCompact()).resolves.toMatchObject({ turnsCompacted: 1 });
  });

  it("aborts: the caller's signal reaches the HTTP request", async () => {
    server.setDefault("messages", { type: "hang" });
    const session = sessionWith(sdk());
    const controller = new AbortController();
    const pending = failure(session.forceCompact({ signal: controller.signal }));
    const [request] = await server.waitForRequests("messages", 1);
    controller.abort();
    expect((await pending).code).toBe("aborted");
    await expect(request!.outcome).resolves.toBe("closed_by_client");
    expect(session.messages).toHaveLength(4);
  });

  it("never lets the API key reach an error, a report or an event", async () => {
    server.setDefault("messages", {
      type: "error",
      status: 401,
      message: `invalid x-api-key ${API_KEY} (key ${API_KEY.slice(0, 12)}…)`,
    });
    const events: CompactionEvent[] = [];
    const session = sessionWith(sdk({ maxRetries: 1 }), {}, (event) => events.push(event));
    session.recordUsage({ inputTokens: 9000 });
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("llm_error");
    expect(report.error?.message).toContain("[redacted]");
    const failed = events.find((event) => event.type === "compaction_failed");
    expect(failed).toBeDefined();
    const forced = await failure(session.forceCompact());
    const cause = forced.cause as APIError;
    for (const text of [
      report.error!.message,
      JSON.stringify(report),
      JSON.stringify(events),
      inspect(report, { depth: 20 }),
      inspect(events, { depth: 20 }),
      forced.message,
      JSON.stringify(forced),
      inspect(forced, { depth: 20 }),
      String(cause),
      cause.message,
      JSON.stringify(cause.error),
    ]) {
      expect(text).not.toContain(API_KEY);
    }
    // The key did go out where it belongs: in the request headers.
    expect(Object.values(server.requestsTo("messages")[0]!.headers).join(" ")).toContain(API_KEY);
  });
});
