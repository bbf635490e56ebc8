import { describe, expect, it } from "vitest";
import { appendAnthropicResponse, toAnthropicMessages } from "../../src/anthropic/index.js";
import { LLMCompactor } from "../../src/compactors/llm-compactor.js";
import { ValidationError } from "../../src/core/errors.js";
import { INTERRUPTED_NOTICE } from "../../src/core/interrupted-calls.js";
import { estimateTokens } from "../../src/core/message-memo.js";
import { validateConversation } from "../../src/core/validate-conversation.js";
import { contextWindowOf } from "../../src/models/model-limits.js";
import { AgentSession } from "../../src/session/agent-session.js";
import type { CompactionArchive } from "../../src/session/archive.js";
import type { CompactionEvent } from "../../src/session/events.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { openSession } from "../../src/store/stored-session.js";
import { MockLlmClient } from "../../src/testing/mock-llm-client.js";

// Issue 22, section 1: the session never holds a conversation the Messages API rejects, except
// an open tail (the last assistant message's calls waiting for results).

const parallelCalls = [
  { type: "tool_use" as const, id: "toolu_a", name: "read", input: { path: "a.ts" } },
  { type: "tool_use" as const, id: "toolu_b", name: "read", input: { path: "b.ts" } },
];
const resultOf = (id: string, content = `contents of ${id}`) => ({
  type: "tool_result" as const,
  toolUseId: id,
  content,
});

/** A session that only summarizes (keeping the last turn), its summary "Summary.". */
const summarizingSession = () =>
  new AgentSession({
    contextLimit: 200_000,
    compactor: false,
    llmCompactor: new LLMCompactor(new MockLlmClient().reply("Summary."), { keepRecentTurns: 1 }),
  });

function sessionWithCalls() {
  const events: CompactionEvent[] = [];
  const session = new AgentSession({
    contextLimit: 200_000,
    onEvent: (event) => events.push(event),
  });
  session.addUserText("Read both files.");
  session.addAssistant(parallelCalls);
  return { session, events };
}

describe("parallel calls answered over several calls", () => {
  it("merges the results into one message while nothing else was appended", () => {
    const { session } = sessionWithCalls();
    const first = session.addToolResults([resultOf("toolu_a")]);
    const merged = session.addToolResults([resultOf("toolu_b")]);
    expect(merged.id).toBe(first.id);
    expect(session.messages).toHaveLength(3);
    expect(
      session.messages[2]?.content.map((block) => block.type === "tool_result" && block.toolUseId),
    ).toEqual(["toolu_a", "toolu_b"]);
    expect(validateConversation(session.messages)).toEqual([]);
    expect(toAnthropicMessages(session.messages)).toHaveLength(3);
  });

  it("refuses a second result for a call already answered, and a result for no call", () => {
    const { session } = sessionWithCalls();
    session.addToolResults([resultOf("toolu_a")]);
    expect(() => session.addToolResults([resultOf("toolu_a")])).toThrow(/toolu_a/);
    expect(() => session.addToolResults([resultOf("toolu_z")])).toThrow(/toolu_z/);
  });

  it("refuses an assistant or system message while calls wait, naming them and how to close them", () => {
    const { session } = sessionWithCalls();
    session.addToolResults([resultOf("toolu_a")]);
    const attempt = () => session.addAssistant([{ type: "text", text: "done" }]);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/toolu_b.*addToolResults/);
    expect(() => session.addSystemMessage("note")).toThrow(/toolu_b/);
    expect(session.messages).toHaveLength(3);
  });

  it("closes calls the user went on without as interrupted, and tells the app", () => {
    const { session, events } = sessionWithCalls();
    session.addToolResults([resultOf("toolu_a")]);
    const user = session.addUserText("Stop, do something else.");
    expect(user.turnId.number).toBe(2);
    const results = session.messages[2]!;
    const closed = results.content.find(
      (block) => block.type === "tool_result" && block.toolUseId === "toolu_b",
    );
    expect(closed).toMatchObject({ isError: true, content: INTERRUPTED_NOTICE });
    expect(events).toContainEqual({
      type: "tool_calls_interrupted",
      toolUseIds: ["toolu_b"],
      messageId: results.id,
    });
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("closes them in a message of their own when no result came at all", () => {
    const { session } = sessionWithCalls();
    session.addUserText("Never mind.");
    expect(session.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
    ]);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("refuses an append that leaves calls unanswered before other messages", () => {
    const { session } = sessionWithCalls();
    const base = {
      sessionId: session.sessionId,
      turnId: { owner: "u", number: 1 },
      createdAt: new Date(),
    };
    expect(() =>
      session.append({
        ...base,
        id: "x1",
        role: "user",
        content: [{ type: "text", text: "hello?" }],
      }),
    ).toThrow(/toolu_a, toolu_b/);
    // Answering every call appends; answering one at the very end leaves an open tail.
    session.append({
      ...base,
      id: "x2",
      role: "user",
      content: [{ ...resultOf("toolu_a"), isError: false }],
    });
    expect(validateConversation(session.messages.slice(0, 2))).toEqual([]);
  });

  it("refuses the same response appended twice", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.addUserText("Hi");
    const response = {
      id: "msg_01",
      content: [{ type: "text" as const, text: "Hello", citations: null }],
      usage: { input_tokens: 10, output_tokens: 2 },
    };
    appendAnthropicResponse(session, response);
    expect(() => appendAnthropicResponse(session, response)).toThrow(/msg_01/);
    expect(session.messages).toHaveLength(2);
  });

  it("stored sessions merge results the same way, for every worker", async () => {
    const store = new MemoryStore();
    const a = await openSession(store, "s", { contextLimit: 200_000 });
    await a.addUserText("Read both files.");
    await a.addAssistant(parallelCalls);
    await a.addToolResults([resultOf("toolu_a")]);
    const b = await openSession(store, "s", { contextLimit: 200_000 });
    await b.addToolResults([resultOf("toolu_b")]);
    await a.refresh();
    expect(a.messages).toHaveLength(3);
    expect(a.messages).toEqual(b.messages);
    expect(validateConversation(a.messages)).toEqual([]);
  });
});

describe("what clamping cuts stays recallable", () => {
  it("archives a 300,000-character tool result and names the handle in the cut", async () => {
    const { session, events } = sessionWithCalls();
    const original = "line of output\n".repeat(20_000);
    session.addToolResults([resultOf("toolu_a", original), resultOf("toolu_b")]);
    const block = session.messages[2]?.content[0];
    const text =
      block?.type === "tool_result" && typeof block.content === "string" ? block.content : "";
    expect(text.length).toBeLessThan(original.length);
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)?.[1];
    expect(handle).toBeDefined();
    const record = await session.recall(handle!);
    expect(record).toMatchObject({ kind: "tool_result", toolUseId: "toolu_a" });
    expect(record.kind === "tool_result" && record.original.content).toBe(original);
    expect(events.find((event) => event.type === "content_clamped")).toMatchObject({ handle });
  });

  it("archives a long pasted user text, in a stored session too", async () => {
    const store = new MemoryStore();
    const writer = await openSession(store, "paste", { contextLimit: 10_000 });
    const paste = `Here is the log:\n${"x".repeat(50_000)}`;
    const message = await writer.addUserText(paste);
    const text = message.content[0]?.type === "text" ? message.content[0].text : "";
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)?.[1];
    const reader = await openSession(store, "paste", { contextLimit: 10_000 });
    const record = await reader.recall(handle!);
    expect(record.kind === "messages" && record.original[0]?.content[0]).toEqual({
      type: "text",
      text: paste,
    });
    // The next handle of every worker comes after it.
    expect(reader.toJSON().archive?.next).toBe(writer.toJSON().archive?.next);
  });
});

describe("the assistant message in flight keeps its thinking", () => {
  it("compaction waits while its calls wait for results, then runs before the request", async () => {
    const session = new AgentSession({
      contextLimit: 4_000,
      compactor: {
        type: "threshold",
        config: { threshold: 0.1, keepRecentToolUses: 1, toolCompaction: "redact" },
      },
    });
    session.addUserText("Read the files.");
    for (let step = 1; step <= 4; step += 1) {
      session.addAssistant([{ type: "tool_use", id: `toolu_${step}`, name: "read", input: {} }]);
      session.addToolResults([resultOf(`toolu_${step}`, "x".repeat(2_000))]);
    }
    const call = session.addAssistant([
      { type: "thinking", thinking: "I need the last file.", signature: "sig" },
      { type: "tool_use", id: "toolu_9", name: "read", input: {} },
    ]);
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(false);
    expect(session.messages).toBe(before);
    await expect(session.forceCompact()).rejects.toMatchObject({ code: "busy" });
    expect(session.messages.at(-1)).toEqual(call);
    session.addToolResults([resultOf("toolu_9")]);
    expect((await session.maybeCompact()).compacted).toBe(true);
    expect(validateConversation(session.messages)).toEqual([]);
  });
});

describe("messages the library writes are marked", () => {
  it("summaries, notices and continuations say so; the user's and the model's do not", async () => {
    const session = summarizingSession();
    for (let turn = 1; turn <= 3; turn += 1) {
      session.addUserText(`request ${turn} ${"with details ".repeat(30)}`);
      session.addAssistant([{ type: "text", text: `answer ${turn} ${"words ".repeat(60)}` }]);
    }
    session.addUserText("Read it.");
    session.addAssistant([
      { type: "thinking", thinking: "Reading.", signature: "sig" },
      { type: "tool_use", id: "toolu_1", name: "read", input: {} },
    ]);
    session.addToolResults([resultOf("toolu_1")]);
    await session.forceCompact();
    const kinds = session.messages.map((message) => message.generated ?? message.role);
    expect(kinds[0]).toBe("summary");
    // The exchange lost its thinking to the summary before it: closed, and marked so.
    expect(kinds.slice(-2)).toEqual(["continuation", "continuation"]);
    expect(kinds.filter((kind) => kind === "user" || kind === "assistant").length).toBeGreaterThan(
      0,
    );

    const interrupted = sessionWithCalls().session;
    interrupted.addUserText("Never mind.");
    expect(interrupted.messages.map((message) => message.generated)).toEqual([
      undefined,
      undefined,
      "notice",
      undefined,
    ]);
  });
});

describe("the last resort keeps the user's words and the files touched", () => {
  it("a trimmed session still holds the directive and the ledger, however many trims", async () => {
    const session = new AgentSession({ contextLimit: 20_000, compactor: false });
    session.addUserText("Never touch package-lock.json.");
    for (let step = 1; step <= 120; step += 1) {
      if (step % 10 === 1) session.addUserText(`Part ${step}: carry on.`);
      session.addAssistant([
        {
          type: "tool_use",
          id: `toolu_${step}`,
          name: "edit_file",
          input: { path: `src/f${step}.ts` },
        },
      ]);
      session.addToolResults([resultOf(`toolu_${step}`, "y".repeat(1_600))]);
      await session.maybeCompact();
    }
    const notice = session.messages.find((message) => message.generated === "notice");
    const text = JSON.stringify(notice?.content);
    expect(text).toContain("Never touch package-lock.json.");
    expect(text).toMatch(/src\/f\d+\.ts/);
    expect(validateConversation(session.messages)).toEqual([]);
    expect(session.contextUsed).toBeLessThan(20_000);
  });
});

describe("nothing a caller holds changes the history", () => {
  it("what was appended is copied in and frozen, and so are requests built from it", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.addUserText("Go.");
    const input = { path: "a.ts" };
    session.addAssistant([{ type: "tool_use", id: "toolu_1", name: "read", input }]);
    input.path = "b.ts";
    expect(JSON.stringify(session.messages)).toContain("a.ts");
    const message = session.messages[1]!;
    expect(() => {
      (message.content as unknown[]).push({ type: "text", text: "x" });
    }).toThrow();
    const request = toAnthropicMessages(session.messages);
    const block = request[1]?.content[0] as { input: { path: string } };
    expect(() => {
      block.input.path = "c.ts";
    }).toThrow();
    expect(JSON.stringify(session.messages)).not.toContain("c.ts");
  });
});

describe("a compaction the model asks for", () => {
  it("runs at the next maybeCompact whatever the thresholds, failures reported, not thrown", async () => {
    const client = new MockLlmClient().fail(new Error("overloaded")).reply("Done with part one.");
    const session = new AgentSession({
      contextLimit: 200_000,
      llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
    });
    for (let turn = 1; turn <= 3; turn += 1) {
      session.addUserText(`part ${turn}: ${"details ".repeat(40)}`);
      session.addAssistant([{ type: "text", text: `done ${turn} ${"words ".repeat(60)}` }]);
    }
    expect((await session.maybeCompact()).compacted).toBe(false);
    session.requestCompaction({ instructions: "Keep the part numbers." });
    expect(session.compactionRequested).toBe(true);
    const failed = await session.maybeCompact();
    expect(failed.error?.code).toBe("llm_error");
    expect(session.compactionRequested).toBe(true);
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(session.compactionRequested).toBe(false);
    expect(client.lastRequest?.prompt).toContain("Keep the part numbers.");
  });
});

describe("the window from the model's name", () => {
  it("takes a known model's window, lets a given contextLimit win, and names the field otherwise", () => {
    const window = contextWindowOf("claude-sonnet-5-5");
    expect(window).toBeGreaterThan(0);
    expect(new AgentSession({ model: "claude-sonnet-5-5" }).contextLimit).toBe(window);
    expect(
      new AgentSession({ model: "claude-sonnet-5-5", contextLimit: 50_000 }).contextLimit,
    ).toBe(50_000);
    expect(() => new AgentSession({ model: "my-own-model" })).toThrow(
      /contextLimit: is required: the window of model "my-own-model" is not known/,
    );
    expect(() => new AgentSession({})).toThrow(/contextLimit: is required/);
  });
});

describe("dollars and windows", () => {
  it("prices every request and compaction, and warns when the window looks wrong", async () => {
    const warnings: string[] = [];
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 100_000,
      model: "claude-sonnet-5-5",
      llmCompactor: new LLMCompactor(
        new MockLlmClient().reply({
          text: "Summary.",
          usage: { inputTokens: 1_000, outputTokens: 100 },
        }),
        { keepRecentTurns: 1 },
      ),
      logger: { warn: (message) => warnings.push(message) },
      onEvent: (event) => events.push(event),
    });
    session.addUserText("Go.");
    session.addAssistant([{ type: "text", text: "Done." }]);
    session.recordUsage({ inputTokens: 1_000, cacheReadInputTokens: 9_000, outputTokens: 200 });
    const afterRequest = session.cost;
    expect(afterRequest?.requests.count).toBe(1);
    expect(afterRequest?.total.cost.totalUsd).toBeGreaterThan(0);
    for (let turn = 1; turn <= 3; turn += 1) {
      session.addUserText(`more ${"words ".repeat(50)}`);
      session.addAssistant([{ type: "text", text: `ok ${"words ".repeat(80)}` }]);
    }
    await session.forceCompact();
    expect(session.cost?.compactions.count).toBe(1);
    expect(session.cost?.total.cost.totalUsd).toBeGreaterThan(afterRequest!.total.cost.totalUsd);
    // The provider accepted more than the configured window: the window is wrong, said once.
    session.recordUsage({ inputTokens: 150_000 });
    session.recordUsage({ inputTokens: 160_000 });
    const warned = events.filter((event) => event.type === "context_window_warning");
    expect(warned).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    // An unknown model without its window known is said too; no prices, no cost.
    const unknown = new AgentSession({ contextLimit: 1_000, model: "my-own-model" });
    expect(unknown.cost).toBeUndefined();
    const above = new AgentSession({
      contextLimit: 5_000_000,
      model: "claude-sonnet-5-5",
      onEvent: (event) => events.push(event),
    });
    expect(above.contextLimit).toBe(5_000_000);
    expect(events.at(-1)).toMatchObject({
      type: "context_window_warning",
      problem: { kind: "above_model_window" },
    });
  });
});

describe("a /compact that frees nothing says why", () => {
  it("names the protected results on the default session", async () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.addUserText("Read the files.");
    for (let step = 1; step <= 3; step += 1) {
      session.addAssistant([{ type: "tool_use", id: `toolu_${step}`, name: "read", input: {} }]);
      session.addToolResults([resultOf(`toolu_${step}`, "z".repeat(4_000))]);
    }
    const result = await session.forceCompact();
    expect(result.boundaries).toEqual([]);
    expect(result.skipped).toEqual([
      { strategy: "threshold", reason: "nothing_to_compact", detail: expect.stringMatching(/\S/) },
    ]);
  });
});

describe("a layout that keeps the cache", () => {
  it("a pinned head stays byte-identical ahead of the summary, and each compaction says what the cache keeps", async () => {
    const session = summarizingSession();
    const rules = session.addUserText(`House rules: ${"never force-push; ".repeat(40)}`, {
      pinned: true,
    });
    for (let turn = 1; turn <= 4; turn += 1) {
      session.addUserText(`task ${turn} ${"details ".repeat(40)}`);
      session.addAssistant([{ type: "text", text: `done ${turn} ${"words ".repeat(80)}end` }]);
    }
    const result = await session.forceCompact();
    expect(session.messages[0]).toBe(rules);
    expect(session.messages[1]?.generated).toBe("summary");
    const [boundary] = result.boundaries;
    // The request after it reads the pinned head from the cache and writes the rest.
    expect(boundary?.cacheReadTokens).toBeGreaterThanOrEqual(estimateTokens([rules]));
    expect(boundary?.cacheWriteTokens).toBe(estimateTokens(session.messages.slice(1)));
    expect(validateConversation(session.messages)).toEqual([]);
  });
});

describe("the default weighs a rewrite of the cache", () => {
  it("does not mask for a small gain, then frees a large part at once", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 10_000,
      onEvent: (event) => events.push(event),
    });
    session.addUserText("Read the files.");
    const step = (index: number) => {
      session.addAssistant([
        { type: "tool_use", id: `toolu_${index}`, name: "read", input: { path: `f${index}.ts` } },
      ]);
      session.addToolResults([resultOf(`toolu_${index}`, "q".repeat(1_000))]);
    };
    for (let index = 1; index <= 9; index += 1) step(index);
    session.recordUsage({ inputTokens: 7_600 });
    // Above three quarters of the window (the threshold), but the rewrite (the oldest of 9
    // results; the 8 newest stay, so nothing else can go) frees less than 10% of it: not worth
    // a rewrite.
    const small = await session.maybeCompact();
    expect(small.compacted).toBe(false);
    expect(events.some((event) => event.type === "compaction_skipped")).toBe(true);
    for (let index = 10; index <= 16; index += 1) step(index);
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(report.contextUsedBefore - report.contextUsedAfter).toBeGreaterThanOrEqual(1_000);
    // At or below the threshold again.
    expect(report.contextUsedAfter).toBeLessThanOrEqual(7_500);
    // The paths the agent read are still in context (the notice's file ledger names them).
    expect(JSON.stringify(session.messages)).toContain("f1.ts");
  });
});

describe("what clamping cut survives a writer that stops before keeping it", () => {
  it("is kept from the stored record by the next worker that reads it, and recallable there", async () => {
    const store = new MemoryStore();
    // The writer lands its record, then cannot keep the original (as if it stopped there).
    const lost: CompactionArchive = {
      put: () => Promise.reject(new Error("the writer stopped")),
      get: () => undefined,
    };
    const writer = await openSession(store, "stop", { contextLimit: 10_000, archive: lost });
    const paste = `Here is the log:\n${"x".repeat(50_000)}`;
    // The write landed: it resolves, the archive's failure logged (review 54b L1).
    await expect(writer.addUserText(paste)).resolves.toMatchObject({ role: "user" });
    const reader = await openSession(store, "stop", { contextLimit: 10_000 });
    const block = reader.messages[0]?.content[0];
    const text = block?.type === "text" ? block.text : "";
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)?.[1];
    expect(handle).toBeDefined();
    const record = await reader.recall(handle!);
    expect(record.kind === "messages" && record.original[0]?.content[0]).toEqual({
      type: "text",
      text: paste,
    });
    // Kept in the store's archive: a third worker finds it without replaying anything new.
    const third = await openSession(store, "stop", { contextLimit: 10_000 });
    await expect(third.recall(handle!)).resolves.toMatchObject({ kind: "messages" });
  });
});
