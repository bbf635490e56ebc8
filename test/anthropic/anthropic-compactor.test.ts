import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AnthropicCompactor,
  type AnthropicCompactorOptions,
  COMPACTION_BETA,
} from "../../src/anthropic/anthropic-compactor.js";
import {
  appendAnthropicResponse,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import { isCompactionBlock } from "../../src/core/conversation-structure.js";
import {
  AgentSession,
  CompactionError,
  type CompactionEvent,
  type Message,
  ValidationError,
  validateConversation,
} from "../../src/index.js";
import { SYSTEM, TOOLS } from "../support/coding-agent.js";
import { MessagesApiServer } from "../support/messages-api-server.js";

/**
 * AnthropicCompactor through the real SDK against the loopback Messages API (which writes the
 * signed block and enforces the preserved-thinking check): the older part summarized by the
 * API, the block first, the recent messages kept unchanged with their thinking valid, the cost
 * in the result, and every documented failure a CompactionError with the history intact.
 */

const API_KEY = "sk-ant-api03-compactor-SECRET-0123456789";

let server: MessagesApiServer;
let client: Anthropic;

beforeEach(async () => {
  server = await MessagesApiServer.start({ thinkByDefault: true, preservedThinking: "enforced" });
  client = new Anthropic({ apiKey: API_KEY, baseURL: server.url, maxRetries: 0 });
});
afterEach(() => {
  vi.useRealTimers();
  return server.close();
});

function compactor(options: Partial<AnthropicCompactorOptions> = {}): AnthropicCompactor {
  return new AnthropicCompactor({
    client,
    model: "claude-fable-5-1",
    system: SYSTEM,
    tools: TOOLS,
    ...options,
  });
}

/** One request of the agent's loop, with the beta every request carrying the block needs. */
function create(session: AgentSession) {
  return client.beta.messages.create({
    model: "claude-fable-5-1",
    max_tokens: 1024,
    system: SYSTEM,
    tools: TOOLS,
    thinking: { type: "adaptive" },
    betas: [COMPACTION_BETA],
    messages: toAnthropicMessages(session.messages),
  });
}

/**
 * A session of `turns` user requests, each answered by a tool call, its result and a text reply,
 * every reply led by signed thinking.
 */
async function sessionOf(
  turns: number,
  options: ConstructorParameters<typeof AgentSession>[0] = { contextLimit: 100_000 },
): Promise<AgentSession> {
  const session = new AgentSession({ compactor: false, ...options, sessionId: "s" });
  for (let turn = 1; turn <= turns; turn += 1) {
    session.addUserText(
      `Request ${turn}: read src/f${turn}.ts and fix it. ${"Context. ".repeat(40)}`,
    );
    server.queue("messages", {
      type: "message",
      content: [
        { type: "tool_use", id: `toolu_${turn}`, name: "read_file", input: { path: `f${turn}` } },
      ],
    });
    appendAnthropicResponse(session, await create(session));
    session.addToolResults([
      { type: "tool_result", tool_use_id: `toolu_${turn}`, content: `// f${turn}\n`.repeat(60) },
    ]);
    server.queue("messages", { type: "message", text: `Fixed f${turn}.` });
    appendAnthropicResponse(session, await create(session));
  }
  return session;
}

const thinkingBlocks = (messages: readonly Message[]) =>
  messages.flatMap((message) => message.content.filter((block) => block.type === "thinking"));

describe("AnthropicCompactor", () => {
  it("summarizes the older turns on the API, puts the block first and keeps the recent turns unchanged", async () => {
    const session = await sessionOf(3);
    const before = session.messages;
    const output = await compactor({
      keepRecentTurns: 1,
      instructions: "Keep file paths.",
    }).compactAsync(before, new Map());
    const request = server.requestsTo("messages").at(-1)!;
    const body = request.body as Record<string, unknown>;
    expect(body["compaction"]).toEqual({ type: "summarize", instructions: "Keep file paths." });
    expect(body["system"]).toBe(SYSTEM);
    expect(body["tools"]).toEqual(TOOLS);
    expect(request.headers["anthropic-beta"]).toContain(COMPACTION_BETA);
    // The last turn (its request, call, result and reply) is kept, the older ones summarized.
    expect(body["messages"]).toEqual(toAnthropicMessages(before.slice(0, 8)));
    const [summary, ...kept] = output.conversation;
    expect(summary!.role).toBe("assistant");
    expect(summary!.turnId).toEqual({ owner: "u", number: 0 });
    expect(isCompactionBlock(summary!.content[0])).toBe(true);
    expect(kept).toEqual(before.slice(8));
    expect(kept.every((message, index) => message === before[8 + index])).toBe(true);
    expect(output.result).toMatchObject({
      turnsCompacted: 2,
      usage: {
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        cacheCreationInputTokens: 0,
        cacheReadInputTokens: 0,
      },
    });
    expect(output.result.usage!.inputTokens).toBeGreaterThan(0);
    expect(output.result.tokensAfter!).toBeLessThan(output.result.tokensBefore!);
    expect(validateConversation(output.conversation)).toEqual([]);
    // The kept turns' thinking is still there, and the API still accepts it.
    expect(thinkingBlocks(kept)).toHaveLength(2);
    server.queue("messages", { type: "message", text: "Continuing." });
    const next = new AgentSession({ contextLimit: 100_000, compactor: false, sessionId: "s" });
    next.append(
      ...output.conversation,
      ...fromAnthropicMessages([{ role: "user", content: "Go on." }], {
        sessionId: "s",
        firstTurnNumber: 9,
      }),
    );
    await expect(create(next)).resolves.toMatchObject({ stop_reason: "end_turn" });
  });

  it("cuts where the API keeps the thinking: never inside a tool call, the first kept message of the other role", async () => {
    const session = await sessionOf(1);
    // One turn: user, call, result, reply. Manual: as far as the rules allow.
    const output = await compactor().compactAsync(session.messages, new Map(), {
      trigger: "manual",
    });
    expect(output.conversation.slice(1)).toEqual(session.messages.slice(3));
    const sent = (server.requestsTo("messages").at(-1)!.body as { messages: unknown[] }).messages;
    expect(sent).toHaveLength(3);
    // Nothing to cut in a conversation of one request.
    const lone = new AgentSession({ contextLimit: 10_000, compactor: false });
    lone.addUserText("Hello.");
    const skipped = await compactor().compactAsync(lone.messages, new Map(), { trigger: "manual" });
    expect(skipped.conversation).toEqual(lone.messages);
    expect(skipped.skipReason).toMatch(/no place to cut/);
  });

  it("aims the kept part at targetUtilization of the window when the context is known", async () => {
    const session = await sessionOf(4);
    const messages = session.messages;
    const output = await compactor({ keepRecentTurns: 3 }).compactAsync(messages, new Map(), {
      contextLimit: 3_000,
      contextUsed: 2_900,
      trigger: "auto",
    });
    // Three turns do not fit half of a 3,000-token window: the cut moves into them.
    expect(output.conversation.length).toBeLessThan(1 + 12);
    expect(validateConversation(output.conversation)).toEqual([]);
  });

  it("compacts again: the new block summarizes the old one and what follows", async () => {
    const session = await sessionOf(3);
    const first = await compactor({ keepRecentTurns: 2 }).compactAsync(session.messages, new Map());
    const second = await compactor({ keepRecentTurns: 1 }).compactAsync(
      first.conversation,
      new Map(),
    );
    const sent = (
      server.requestsTo("messages").at(-1)!.body as { messages: { content: unknown }[] }
    ).messages;
    expect(sent[0]!.content).toEqual([expect.objectContaining({ type: "compaction" })]);
    expect(second.conversation.slice(1)).toEqual(session.messages.slice(8));
    // Nothing new to summarize: unchanged.
    const third = await compactor({ keepRecentTurns: 1 }).compactAsync(
      second.conversation,
      new Map(),
    );
    expect(third.conversation).toEqual(second.conversation);
  });

  it("validates its options", () => {
    expect(() => new AnthropicCompactor({ client: {} as never, model: "m" })).toThrow(
      ValidationError,
    );
    expect(() => compactor({ threshold: 0 })).toThrow(/threshold/);
    expect(() => compactor({ threshold: 0.6, targetUtilization: 0.7 })).toThrow(
      /targetUtilization/,
    );
    expect(() => compactor({ instructions: "x".repeat(16_385) })).toThrow(/instructions/);
    expect(() => compactor({ keepRecentTurns: 0 })).toThrow(/keepRecentTurns/);
  });
});

describe("AnthropicCompactor failures: a CompactionError, the history intact", () => {
  async function failing(
    setup: () => void,
    options: Partial<AnthropicCompactorOptions> = {},
    signal?: AbortSignal,
  ): Promise<{ error: CompactionError; session: AgentSession; before: readonly Message[] }> {
    const session = await sessionOf(2);
    const before = session.messages;
    setup();
    const failure = await compactor({ keepRecentTurns: 1, ...options })
      .compactAsync(before, new Map(), signal === undefined ? {} : { signal })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(CompactionError.isInstance(failure)).toBe(true);
    expect(session.messages).toBe(before);
    return { error: failure as CompactionError, session, before };
  }

  it.each(["max_tokens", "model_context_window_exceeded", "tool_use", "refusal", "end_turn"])(
    "no summary (stop_reason %s) is empty_summary",
    async (stopReason) => {
      const { error } = await failing(() =>
        server.queue("compaction", { type: "compaction", stopReason }),
      );
      expect(error.code).toBe("empty_summary");
      expect(error.message).toContain(stopReason);
    },
  );

  it.each([
    [529, "overloaded_error", "compaction_unavailable"],
    [400, "invalid_request_error", "compaction_nothing_to_summarize"],
    [400, "invalid_request_error", "compaction_incomplete_turn"],
    [400, "invalid_request_error", "compaction_signature_invalid"],
  ])(
    "an API error (%i %s %s) is llm_error with the SDK's error as cause, key scrubbed",
    async (status, errorType, errorCode) => {
      const { error } = await failing(() =>
        server.queue("compaction", {
          type: "error",
          status,
          errorType,
          errorCode,
          message: `${errorCode} for ${API_KEY}`,
        }),
      );
      expect(error.code).toBe("llm_error");
      expect(error.cause).toBeInstanceOf(APIError);
      expect((error.cause as APIError).status).toBe(status);
      expect((error.cause as APIError).errorCode).toBe(errorCode);
      expect(error.message).not.toContain(API_KEY);
      expect(JSON.stringify((error.cause as APIError).error)).not.toContain(API_KEY);
    },
  );

  /** Runs `action` once the next request is at the server (no wall-clock wait). */
  function onNextRequest(action: () => void): void {
    const count = server.requestsTo("messages").length + 1;
    void server.waitForRequests("messages", count).then(action);
  }

  it("a hung request is timeout, and an abort is aborted", async () => {
    // The deadline's timer is a fake one, moved past its 50 ms once the request is at the server.
    const timeout = await failing(
      () => {
        server.queue("compaction", { type: "hang" });
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
        onNextRequest(() => vi.advanceTimersByTime(50));
      },
      { timeoutMs: 50 },
    );
    expect(timeout.error.code).toBe("timeout");
    vi.useRealTimers();
    const controller = new AbortController();
    const aborted = await failing(
      () => {
        server.queue("compaction", { type: "hang" });
        onNextRequest(() => controller.abort(new Error("stop")));
      },
      {},
      controller.signal,
    );
    expect(aborted.error.code).toBe("aborted");
  });

  it("in a session: maybeCompact reports the failure and leaves the conversation as it was", async () => {
    const events: CompactionEvent[] = [];
    const session = await sessionOf(2, {
      contextLimit: 1_200,
      llmCompactor: compactor({ keepRecentTurns: 1 }),
      onEvent: (event) => events.push(event),
    });
    const before = session.messages;
    server.queue("compaction", { type: "compaction", stopReason: "refusal" });
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("empty_summary");
    expect(session.messages).toEqual(before);
    expect(events.some((event) => event.type === "compaction_failed")).toBe(true);
    // The next one succeeds, and its cost is in the compaction_end event.
    const next = await session.maybeCompact();
    expect(next.compacted).toBe(true);
    const end = events.find((event) => event.type === "compaction_end");
    expect(end?.type === "compaction_end" && end.strategy).toBe("anthropic");
    expect(end?.type === "compaction_end" && end.result.usage?.inputTokens).toBeGreaterThan(0);
    expect(end?.type === "compaction_end" && end.boundary.thinkingBlocksDropped).toBe(0);
  });
});
