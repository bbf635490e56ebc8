import { describe, expect, it } from "vitest";
import { estimateMessageTokens } from "../core/message-memo.js";
import {
  AgentSession,
  CompactionError,
  type CompactionEvent,
  createCompactor,
  estimateTokens,
  LLMCompactor,
  type Message,
  REDACTION_NOTICE,
  SUMMARY_PREFIX,
  ThresholdCompactor,
  ValidationError,
  validateConversation,
} from "../index.js";
import { ConversationBuilder, MockLlmClient, toolResultBlock } from "../testing/index.js";

const fixedClock = () => new Date("2026-06-01T12:00:00Z");

function history(turns: number, resultSize = 2000): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder
      .user(`request ${turn}`)
      .toolCall({
        name: "read",
        result: "r".repeat(resultSize),
        compactSummary: `summary ${turn}`,
      })
      .assistant(`answer ${turn}`);
  }
  return builder.build();
}

/** A summariser whose reply the test releases by hand. */
function controlledClient() {
  const pending: { resolve: (text: string) => void; reject: (error: Error) => void }[] = [];
  const client = new MockLlmClient({
    defaultReply: () =>
      new Promise<string>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
  });
  return { client, pending };
}

describe("AgentSession: building the conversation", () => {
  it("assigns ids, turns and timestamps with its helpers", () => {
    const session = new AgentSession({ contextLimit: 10_000, sessionId: "s-1", clock: fixedClock });
    const first = session.addUserText("hello");
    const reply = session.addAssistant([
      { type: "text", text: "let me look" },
      { type: "tool_use", id: "t1", name: "ls", input: { path: "." } },
    ]);
    const results = session.addToolResults([
      toolResultBlock("t1", "a b c", { compactSummary: "3 files" }),
    ]);
    const second = session.addUserText("thanks");
    expect(first).toMatchObject({
      role: "user",
      sessionId: "s-1",
      turnId: { owner: "u", number: 1 },
    });
    expect(first.createdAt).toEqual(fixedClock());
    expect(reply.turnId).toEqual({ owner: "u", number: 1 });
    expect(results).toMatchObject({ role: "user", turnId: { owner: "u", number: 1 } });
    expect(second.turnId).toEqual({ owner: "u", number: 2 });
    expect(new Set(session.messages.map((message) => message.id)).size).toBe(4);
    // uuid v7: time-ordered ids
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(session.compactSummaries.get("t1")).toBe("3 files");
  });

  it("refuses an assistant message or tool results before any user turn", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    expect(() => session.addAssistant([{ type: "text", text: "hi" }])).toThrow(ValidationError);
    expect(() => session.addToolResults([toolResultBlock("x", "y")])).toThrow(ValidationError);
    expect(session.messages).toHaveLength(0);
  });

  it("validates appended messages all first: nothing is half-applied", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    const [good, bad] = new ConversationBuilder().user("a").user("b").build();
    const broken = { ...bad!, turnId: { owner: "u", number: -1 } };
    expect(() => session.append(good!, broken as Message)).toThrow(/\[1\]\.turnId\.number/);
    expect(session.messages).toHaveLength(0);
    session.append(good!);
    expect(() => session.append(good!)).toThrow(/duplicate message id/);
    expect(session.messages).toHaveLength(1);
  });

  it.each([
    [{ contextLimit: 0 }, "contextLimit"],
    [{ contextLimit: Number.NaN }, "contextLimit"],
    [{ contextLimit: 1000, sessionId: "" }, "sessionId"],
    [{ contextLimit: 1000, compactor: { type: "nope" } }, "compactor"],
    [
      { contextLimit: 1000, compactor: { type: "threshold", config: { threshold: 1.5 } } },
      "threshold",
    ],
    [{ contextLimit: 1000, llmCompactor: {} }, "llmCompactor"],
    [{ contextLimit: 1000, compactor: { type: "llm" } }, "needs an LlmClient"],
    [{ contextLimit: 1000, llmClient: {} }, "llmClient"],
    // Exactly what the session can run: isAsync with compactAsync, or compact.
    [
      {
        contextLimit: 1000,
        llmCompactor: { shouldCompact: () => true, compactAsync: async () => ({}) },
      },
      "compact method",
    ],
    [
      {
        contextLimit: 1000,
        compactor: { shouldCompact: () => true, isAsync: true, compact: () => ({}) },
      },
      "compactAsync",
    ],
  ])("refuses options %j naming %s", (options, field) => {
    const attempt = () => new AgentSession(options as never);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
  });
});

describe("optional fields set to undefined", () => {
  it("are treated as absent, as callers without exactOptionalPropertyTypes write them", () => {
    // Typed loosely on purpose: this is what a caller without exactOptionalPropertyTypes passes.
    const loose = <T>(value: unknown) => value as T;
    const session = new AgentSession(
      loose({ contextLimit: 1000, sessionId: undefined, llmCompactor: undefined }),
    );
    session.addUserText("hi");
    session.addAssistant([{ type: "tool_use", id: "t", name: "ls", input: {} }]);
    session.addToolResults(
      loose([
        {
          type: "tool_result",
          toolUseId: "t",
          content: "a b",
          isError: false,
          compactSummary: undefined,
        },
      ]),
    );
    session.recordUsage(loose({ inputTokens: 5, cacheReadInputTokens: undefined }));
    expect(session.contextUsed).toBe(5);
    expect(new ThresholdCompactor(loose({ threshold: undefined })).config.threshold).toBe(0.75);
    // A required field stays required.
    expect(() => session.recordUsage(loose({ inputTokens: undefined }))).toThrow(/inputTokens/);
  });
});

describe("AgentSession: measuring the context", () => {
  it("counts input + cache creation + cache read + output, plus messages appended since", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.append(...history(2));
    session.recordUsage({
      inputTokens: 1000,
      cacheCreationInputTokens: 2000,
      cacheReadInputTokens: 30_000,
      outputTokens: 500,
    });
    expect(session.contextUsed).toBe(33_500);
    const next = session.addUserText("x".repeat(400));
    expect(session.contextUsed).toBe(33_500 + estimateMessageTokens(next));
  });

  it("does not count the reply twice when usage is recorded before the reply is appended", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.addUserText("question");
    session.recordUsage({ inputTokens: 5000, outputTokens: 300 });
    session.addAssistant([{ type: "text", text: "y".repeat(4000) }]);
    expect(session.contextUsed).toBe(5300);
    const next = session.addUserText("follow-up");
    expect(session.contextUsed).toBe(5300 + estimateMessageTokens(next));
  });

  it("estimates locally before any usage is recorded", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    const messages = history(3);
    session.append(...messages);
    expect(session.contextUsed).toBe(estimateTokens(messages));
  });

  it.each([
    [{ inputTokens: -1 }, "inputTokens"],
    [{ inputTokens: 1.5 }, "inputTokens"],
    [{ inputTokens: 10, cacheReadInputTokens: Number.NaN }, "cacheReadInputTokens"],
    [{}, "inputTokens"],
  ])("refuses usage %j naming %s", (usage, field) => {
    const session = new AgentSession({ contextLimit: 1000 });
    expect(() => session.recordUsage(usage as never)).toThrow(field);
  });
});

describe("AgentSession: maybeCompact", () => {
  it("does nothing under the threshold", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 1_000_000,
      onEvent: (event) => events.push(event),
    });
    session.append(...history(6));
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report).toMatchObject({ compacted: false, results: [] });
    expect(session.messages).toBe(before);
    expect(events).toEqual([]);
  });

  it("runs the default threshold compactor over the threshold, then reports and emits", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 20_000,
      onEvent: (event) => events.push(event),
    });
    // Above three quarters of the window the default keeps the 8 newest tool uses whole and
    // removes the older messages in one rewrite (archived; a notice keeps the user's words).
    session.append(...history(80, 1500));
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(report.results).toMatchObject([
      { strategy: "threshold", result: { messagesRemoved: expect.any(Number) } },
    ]);
    // No compaction leaves the context above its trigger.
    expect(report.contextUsedAfter).toBeLessThanOrEqual(15_000);
    // A sync compactor is instantaneous: it reports its end (or a skip), no start.
    expect(events.map((event) => event.type)).toEqual(["compaction_end"]);
    expect(events[0]).toMatchObject({ trigger: "auto", strategy: "threshold" });
    const contents = session.messages.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    // The 8 newest results stay whole: the agent has just read them. Any older one still
    // there is its summary, naming the recall handle of its original.
    expect(contents.slice(-8)).toEqual(Array.from({ length: 8 }, () => "r".repeat(1500)));
    for (const older of contents.slice(0, -8)) {
      expect(older).toMatch(/^summary \d+ \[recall r\d+-[0-9a-f]{4}\]$/);
    }
    // The notice keeps the user's words and names the recall handle of what it stands for.
    const notice = JSON.stringify(session.messages[0]?.content);
    expect(notice).toContain("request 1");
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(notice)![1]!;
    const recalled = JSON.stringify(await session.recall(handle));
    expect(recalled).toContain("summary 1");
    expect(recalled).toContain("r".repeat(1500));
  });

  it("judges the LLM compactor on the context left after the threshold compactor", async () => {
    const client = new MockLlmClient();
    const session = new AgentSession({
      contextLimit: 4000,
      compactor: { type: "threshold", config: { toolCompaction: "redact" } },
      llmCompactor: new LLMCompactor(client, { threshold: 0.75 }),
    });
    session.append(...history(6));
    const report = await session.maybeCompact();
    // 6 turns of ~515 tokens (77% of 4000): the redaction alone brings it well below 75%.
    expect(report.contextUsedBefore / 4000).toBeGreaterThan(0.75);
    expect(report.results.map((step) => step.strategy)).toEqual(["threshold"]);
    expect(report.results[0]?.result.toolResultsRedacted).toBe(3);
    expect(JSON.stringify(session.messages)).toContain(REDACTION_NOTICE);
    expect(client.callCount).toBe(0);

    const tight = new AgentSession({
      contextLimit: 2000,
      compactor: { type: "threshold", config: { toolCompaction: "redact" } },
      llmCompactor: new LLMCompactor(client),
    });
    tight.append(...history(6));
    const tightReport = await tight.maybeCompact();
    // The fold goes into the recent turns too, down to its target: their tool uses take more
    // than its target's share of the window, so fewer than its 8 stay whole.
    expect(tightReport.results[1]).toMatchObject({
      strategy: "llm",
      result: { turnsCompacted: 5 },
    });
    expect(tight.messages[0]?.content[0]).toMatchObject({
      text: expect.stringContaining(SUMMARY_PREFIX),
    });
    expect(client.callCount).toBe(1);
    // The summariser sees the compact summary of a redacted result, not the redacted text.
    expect(client.lastRequest?.prompt).toContain("summary 1");
    expect(client.lastRequest?.prompt).not.toContain("rrrr");
  });

  it("runs an llm compactor made by createCompactor as the session's compactor", async () => {
    const client = new MockLlmClient().reply("compact story");
    const session = new AgentSession({
      contextLimit: 1000,
      compactor: createCompactor({ type: "llm", config: { keepRecentTurns: 1 } }, client),
    });
    session.append(...history(3));
    const report = await session.maybeCompact();
    expect(report.results[0]?.result.turnsCompacted).toBe(2);
    expect(session.messages[0]?.content[0]).toMatchObject({
      text: `${SUMMARY_PREFIX}compact story`,
    });
  });

  it("can be turned off with compactor: false", async () => {
    const session = new AgentSession({
      contextLimit: 100,
      compactor: false,
      trimOnOverflow: false,
    });
    session.append(...history(6));
    expect(await session.maybeCompact()).toMatchObject({ compacted: false, results: [] });
  });

  it("never rejects for a summariser failure: reports it once and leaves the history as it was", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 1000,
      compactor: false,
      trimOnOverflow: false,
      llmCompactor: new LLMCompactor(new MockLlmClient().fail(new Error("503"))),
      onEvent: (event) => events.push(event),
    });
    session.append(...history(5));
    const before = structuredClone(session.messages); // a short history: a frozen array
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(false);
    expect(report.error?.code).toBe("llm_error");
    expect(session.messages).toEqual(before);
    expect(events.filter((event) => event.type === "compaction_failed")).toHaveLength(1);
  });

  it("keeps every message appended while a summary is being written, in order", async () => {
    const { client, pending } = controlledClient();
    const session = new AgentSession({
      contextLimit: 1000,
      compactor: false,
      // A target the fold of the old turns reaches (a short summary): the two recent turns stay whole.
      llmCompactor: new LLMCompactor(client, {
        keepRecentTurns: 2,
        targetUtilization: 0.75,
        maxSummaryTokens: 20,
      }),
    });
    session.append(...history(5));
    const running = session.maybeCompact();
    await expect.poll(() => pending.length).toBe(1);
    expect(session.isCompacting).toBe(true);
    const late = [
      session.addUserText("while summarising"),
      session.addAssistant([{ type: "text", text: "ok" }]),
    ];
    pending[0]!.resolve("the summary");
    const report = await running;
    expect(report.results[0]?.result.turnsCompacted).toBe(3);
    expect(session.messages.slice(-2)).toEqual(late);
    expect(session.messages[0]?.content[0]).toMatchObject({ text: `${SUMMARY_PREFIX}the summary` });
    // turns 4 and 5 are kept whole, then the late messages
    expect(session.messages.map((message) => message.turnId.number)).toEqual([
      0, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6,
    ]);
  });

  it("runs one compaction at a time: a second call joins the first", async () => {
    const { client, pending } = controlledClient();
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 1000,
      compactor: false,
      llmCompactor: new LLMCompactor(client),
      // About queueing, not the last resort: a trim after the first run would leave the forced one nothing to fold.
      trimOnOverflow: false,
      onEvent: (event) => events.push(event),
    });
    session.append(...history(5));
    const first = session.maybeCompact();
    const second = session.maybeCompact();
    expect(second).toBe(first);
    const forced = session.forceCompact();
    await expect.poll(() => pending.length).toBe(1);
    // The forced compaction waits for the first run: no second request while it runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(1);
    pending[0]!.resolve("one");
    await first;
    // Then it runs, and folds what the automatic run kept of the latest turn.
    await expect.poll(() => pending.length).toBe(2);
    pending[1]!.resolve("two");
    expect((await forced).turnsCompacted).toBeGreaterThan(0);
    expect(client.callCount).toBe(2);
    const starts = events.filter((event) => event.type === "compaction_start").length;
    expect(starts).toBe(2);
  });
  it("forgets compact summaries of tool results a summary replaced, keeps those stored ahead", async () => {
    const session = new AgentSession({
      contextLimit: 1000,
      compactor: false,
      trimOnOverflow: false,
      llmCompactor: new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 }),
    });
    session.append(...history(3));
    session.storeCompactSummaries(
      new Map([
        ["toolu_1", "one"],
        ["toolu_3", "three"],
        ["later", "ahead"],
      ]),
    );
    // An automatic summary folds the turns older than keepRecentTurns: toolu_3's stays.
    await session.maybeCompact();
    expect([...session.compactSummaries.keys()].sort()).toEqual(["later", "toolu_3"]);
  });
});

describe("AgentSession: forceCompact", () => {
  it("ignores the threshold", async () => {
    const session = new AgentSession({ contextLimit: 10_000_000 });
    session.append(...history(10));
    const result = await session.forceCompact();
    // The results of the turns before the 3 recent ones (a manual compaction keeps no share of
    // the window).
    expect(result).toMatchObject({ toolResultsSummarized: 7 });
  });

  it("rejects with CompactionError and applies nothing, not even the threshold pass", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 10_000_000,
      compactor: new ThresholdCompactor({ toolCompaction: "redact" }),
      llmCompactor: new LLMCompactor(new MockLlmClient().empty()),
      onEvent: (event) => events.push(event),
    });
    session.append(...history(5));
    const before = structuredClone(session.messages); // a short history: a frozen array
    const error = await session.forceCompact().catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(CompactionError);
    expect((error as CompactionError).code).toBe("empty_summary");
    expect(session.messages).toEqual(before);
    // The threshold pass computed its change but never applied it: no end event.
    expect(events.map((event) => event.type)).toEqual(["compaction_start", "compaction_failed"]);
  });

  it("passes instructions to the summariser and returns the combined result", async () => {
    const client = new MockLlmClient();
    const session = new AgentSession({
      contextLimit: 10_000_000,
      llmCompactor: new LLMCompactor(client),
    });
    session.append(...history(10));
    const result = await session.forceCompact({ instructions: "Focus on file names" });
    expect(client.lastRequest?.prompt).toContain("Focus on file names");
    // A manual compaction folds as far as it can: every turn, the latest request kept verbatim.
    expect(result).toMatchObject({ toolResultsSummarized: 7, turnsCompacted: 10 });
  });

  it("is at least as strong as an automatic one: inside one turn it folds the old tool exchanges", async () => {
    const builder = new ConversationBuilder().user("Migrate every module.");
    for (let call = 1; call <= 12; call += 1)
      builder.toolCall({
        name: "edit",
        input: { file: `m${call}.ts` },
        result: "done ".repeat(300),
      });
    const session = new AgentSession({
      contextLimit: 10_000_000,
      compactor: false,
      llmCompactor: new LLMCompactor(new MockLlmClient()),
    });
    session.append(...builder.build());
    const before = estimateTokens(session.messages);
    const result = await session.forceCompact();
    expect(result.turnsCompacted).toBe(1);
    expect(result.tokensAfter).toBeLessThan(before / 3);
    expect(validateConversation(session.messages)).toEqual([]);
    // The request and the newest exchange are kept verbatim.
    expect(JSON.stringify(session.messages)).toContain("Migrate every module.");
    expect(session.messages.at(-1)?.content[0]).toMatchObject({ type: "tool_result" });
  });
});

describe("AgentSession: snapshots", () => {
  it("round-trips through JSON with dates restored", async () => {
    const session = new AgentSession({ contextLimit: 5000, sessionId: "snap" });
    session.append(...history(4));
    session.storeCompactSummaries({ toolu_1: "changed summary" });
    session.recordUsage({ inputTokens: 4200, cacheReadInputTokens: 100 });
    const json = JSON.parse(JSON.stringify(session));
    const restored = AgentSession.fromJSON(json);
    expect(restored.messages).toEqual(session.messages);
    expect(restored.messages[0]?.createdAt).toBeInstanceOf(Date);
    expect(restored.sessionId).toBe("snap");
    expect(restored.contextLimit).toBe(5000);
    expect(restored.contextUsed).toBe(session.contextUsed);
    expect(restored.compactSummaries.get("toolu_1")).toBe("changed summary");
    expect(restored.addUserText("next").turnId.number).toBe(5);
  });

  it("refuses a malformed snapshot naming the field", () => {
    const session = new AgentSession({ contextLimit: 5000 });
    session.append(...history(1));
    const json = JSON.parse(JSON.stringify(session));
    json.messages[1].createdAt = "yesterday";
    expect(() => AgentSession.fromJSON(json)).toThrow(/messages\[1\]\.createdAt/);
    expect(() => AgentSession.fromJSON({ ...json, version: 2 })).toThrow(/version/);
    expect(() => AgentSession.fromJSON(null)).toThrow(ValidationError);
  });
});

describe("AgentSession: messages", () => {
  it("is a frozen snapshot: holding it is safe and writing to it throws", () => {
    const session = new AgentSession({ contextLimit: 1000 });
    session.addUserText("one");
    const view = session.messages;
    expect(session.messages).toBe(view);
    expect(() => (view as Message[]).push(view[0]!)).toThrow(TypeError);
    session.addUserText("two");
    expect(view).toHaveLength(1);
    expect(session.messages).toHaveLength(2);
  });
});
