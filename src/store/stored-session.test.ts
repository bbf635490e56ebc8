import { describe, expect, it } from "vitest";
import { warningLogger } from "../../test/support/warning-logger.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import { validateConversation } from "../core/validate-conversation.js";
import type { CompactionEvent } from "../session/events.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { MemoryStore } from "./memory-store.js";
import { StoreError } from "./store-error.js";
import { openSession, type StoredSession } from "./stored-session.js";

const LIMIT = { contextLimit: 200_000 };

function summarizer(client: LlmClient = new MockLlmClient().reply("the summary")) {
  return {
    ...LIMIT,
    compactor: false as const,
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
  };
}

async function fill(session: StoredSession, turns: number) {
  for (let index = 1; index <= turns; index += 1) {
    await session.addUserText(`request ${index} ${"with details ".repeat(10)}`);
    await session.addAssistant([{ type: "text", text: `answer ${index} ${"words ".repeat(20)}` }]);
  }
}

const ids = (session: StoredSession) => session.messages.map((message) => message.id);

describe("openSession", () => {
  it("refuses bad options and ids, naming the field", async () => {
    const store = new MemoryStore();
    await expect(openSession(store, "", LIMIT)).rejects.toThrow(/session id/);
    await expect(openSession(store, "s", { ...LIMIT, leaseMs: 0 })).rejects.toThrow(/leaseMs/);
    await expect(openSession(store, "s", { ...LIMIT, maxAttempts: 1.5 })).rejects.toThrow(
      /maxAttempts/,
    );
    await expect(
      openSession(store, "s", { ...LIMIT, sessionId: "other" } as never),
    ).rejects.toThrow(/sessionId/);
    await expect(openSession(store, "s", { contextLimit: -1 })).rejects.toSatisfy(
      ValidationError.isInstance,
    );
    await expect(openSession(store, "s", { ...LIMIT, background: true })).rejects.toThrow(
      /background: is not for stored sessions/,
    );
  });

  it("creates a new session empty, and another worker sees what one wrote", async () => {
    const store = new MemoryStore();
    const first = await openSession(store, "s", LIMIT);
    expect(first.messages).toEqual([]);
    expect(first.position).toEqual({ tail: 0, version: 0 });
    const user = await first.addUserText("hello");
    expect(user.sessionId).toBe("s");
    await first.addAssistant([{ type: "text", text: "hi" }]);
    const second = await openSession(store, "s", LIMIT);
    expect(second.messages).toEqual(first.messages);
    expect(second.toJSON()).toEqual(first.toJSON());
  });
});

describe("StoredSession writes", () => {
  it("numbers turns and checks tool results against the store's latest, not a stale copy", async () => {
    const store = new MemoryStore();
    const a = await openSession(store, "s", LIMIT);
    const b = await openSession(store, "s", LIMIT);
    await a.addUserText("first");
    await a.addAssistant([{ type: "tool_use", id: "toolu_1", name: "ls", input: {} }]);
    // b has read nothing since it opened: its writes read what they missed first.
    const results = await b.addToolResults([
      { type: "tool_result", toolUseId: "toolu_1", content: "a.ts" },
    ]);
    expect(results.turnId).toEqual({ owner: "u", number: 1 });
    expect((await b.addUserText("second")).turnId).toEqual({ owner: "u", number: 2 });
    await expect(
      a.addToolResults([{ type: "tool_result", toolUseId: "toolu_1", content: "again" }]),
    ).rejects.toSatisfy(ValidationError.isInstance);
    expect(b.position.tail).toBe(4);
    // A stale copy would hold toolu_1 as still waiting and refuse it; in the store's latest it
    // was answered, so a provider numbering each reply's calls may use it again, in turn 2.
    const reused = await a.addAssistant([
      { type: "tool_use", id: "toolu_1", name: "ls", input: {} },
    ]);
    expect(reused.turnId).toEqual({ owner: "u", number: 2 });
    await expect(
      a.addAssistant([{ type: "tool_use", id: "toolu_2", name: "ls", input: {} }]),
    ).rejects.toSatisfy(ValidationError.isInstance);
    await b.refresh();
    expect(ids(a)).toEqual(ids(b));
  });

  it("appends a retried message once", async () => {
    const store = new MemoryStore();
    const session = await openSession(store, "s", LIMIT);
    const messages = new ConversationBuilder({ sessionId: "s" }).user("hi").assistant("yo").build();
    await session.append(...messages);
    await session.append(...messages);
    await session.append();
    expect(session.position.tail).toBe(1);
    const other = await openSession(store, "s", LIMIT);
    expect(ids(other)).toEqual(["msg-1", "msg-2"]);
    await expect(other.append(messages[0]!, { ...messages[1]!, id: "msg-3" })).rejects.toThrow(
      /duplicate message id "msg-1"/,
    );
  });

  it("persists usage and compact summaries, so every worker measures the same context", async () => {
    const store = new MemoryStore();
    const a = await openSession(store, "s", LIMIT);
    await a.addUserText("hello");
    await a.recordUsage({ inputTokens: 1200, cacheReadInputTokens: 300, outputTokens: 40 });
    await a.storeCompactSummaries({ toolu_9: "nine files" });
    await a.addAssistant([{ type: "text", text: "hi" }]);
    const b = await openSession(store, "s", LIMIT);
    expect(b.contextUsed).toBe(a.contextUsed);
    expect(b.contextUsed).toBeGreaterThanOrEqual(1540);
    expect(b.compactSummaries.get("toolu_9")).toBe("nine files");
  });

  it("serializes calls made without awaiting on one object", async () => {
    const session = await openSession(new MemoryStore(), "s", LIMIT);
    await Promise.all([
      session.addUserText("one"),
      session.addUserText("two"),
      session.addUserText("three"),
    ]);
    expect(session.messages.map((message) => message.turnId.number)).toEqual([1, 2, 3]);
  });
});

describe("StoredSession compaction", () => {
  it("does nothing, and takes no lease, when no compactor is due", async () => {
    const store = new MemoryStore();
    const session = await openSession(store, "s", LIMIT);
    await fill(session, 2);
    expect(await store.acquireLease("s", "someone-else", 60_000)).toBe(true);
    const report = await session.maybeCompact();
    expect(report).toMatchObject({ compacted: false, results: [], boundaries: [] });
    expect(report.discarded).toBeUndefined();
  });

  it("emits a compaction's events once it applied, and releases the lease", async () => {
    const store = new MemoryStore();
    const events: CompactionEvent[] = [];
    const boundaries: unknown[] = [];
    const session = await openSession(store, "s", {
      ...summarizer(),
      onEvent: (event) => events.push(event),
      afterCompact: (boundary) => {
        boundaries.push(boundary);
      },
    });
    await fill(session, 4);
    const result = await session.forceCompact();
    expect(result.turnsCompacted).toBe(3);
    expect(events.map((event) => event.type)).toEqual(["compaction_start", "compaction_end"]);
    expect(boundaries).toHaveLength(1);
    expect(await store.acquireLease("s", "someone-else", 60_000)).toBe(true);
    const other = await openSession(store, "s", LIMIT);
    expect(other.messages).toEqual(session.messages);
    expect(other.position).toEqual({ tail: 8, version: 1 });
  });

  it("maybeCompact joins a run in progress; forceCompact rejects busy when the lease stays held", async () => {
    const store = new MemoryStore();
    const session = await openSession(store, "s", {
      ...summarizer(),
      llmCompactor: new LLMCompactor(new MockLlmClient().reply("sum"), {
        keepRecentTurns: 1,
        threshold: 0.001,
      }),
      leaseMs: 20,
    });
    await fill(session, 3);
    const first = session.maybeCompact();
    expect(session.maybeCompact()).toBe(first);
    expect((await first).compacted).toBe(true);
    expect(await store.acquireLease("s", "a-live-worker", 60_000)).toBe(true);
    await expect(session.forceCompact()).rejects.toMatchObject({ code: "busy" });
  });

  it("trims over the window while another worker holds the lease for a summary (review 54b H5)", async () => {
    const store = new MemoryStore();
    const session = await openSession(store, "s", {
      contextLimit: 10_000,
      llmCompactor: new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 }),
    });
    for (let task = 0; task < 6; task += 1) {
      await session.addUserText(`task ${task} ${"detail ".repeat(400)}`);
      await session.addAssistant([{ type: "text", text: `done ${task} ${"words ".repeat(400)}` }]);
    }
    // Another worker's summary goes on: it holds the lease for a minute.
    expect(await store.acquireLease("s", "a-summarizing-worker", 60_000)).toBe(true);
    await session.addUserText(`and this log ${"line ".repeat(2_000)}`);
    expect(session.contextUsed).toBeGreaterThan(10_000);
    const report = await session.maybeCompact();
    expect(report.discarded).toBe("lease_held");
    expect(report.overWindow).toBe(false);
    expect(session.contextUsed).toBeLessThanOrEqual(10_000);
    const reader = await openSession(store, "s", { contextLimit: 10_000 });
    expect(reader.messages).toEqual(session.messages);
    expect(validateConversation(reader.messages)).toEqual([]);
  });

  it("a worker whose refresh finds another's call waiting trims nothing and resolves (review 54d #1)", async () => {
    const store = new MemoryStore();
    const options = { contextLimit: 20_000, compactor: false as const };
    const stale = await openSession(store, "s", options);
    const agent = await openSession(store, "s", options);
    for (let turn = 0; turn < 10; turn += 1) {
      await agent.addUserText(`Question ${turn}: ${"q".repeat(6_000)}`);
      await agent.addAssistant([{ type: "text", text: `Answer ${turn}: ${"a".repeat(6_000)}` }]);
    }
    await agent.addUserText("run the tests");
    await agent.addAssistant([
      { type: "thinking", thinking: "run", signature: "sig" },
      { type: "tool_use", id: "t1", name: "bash", input: {} },
    ]);
    expect((await stale.maybeCompact()).compacted).toBe(false);
    await agent.addToolResults([{ type: "tool_result", toolUseId: "t1", content: "12 passing" }]);
    const report = await agent.maybeCompact();
    expect(report.overWindow).toBe(false);
    expect(validateConversation(agent.messages)).toEqual([]);
  });

  it("a write that landed resolves though the archive failed to keep what it clamped (review 54b L1)", async () => {
    const store = new (class extends MemoryStore {
      failArchive = 1;
      override async setValue(id: string, key: string, value: string) {
        if (key.startsWith("archive:") && this.failArchive > 0) {
          this.failArchive -= 1;
          throw new StoreError("io_error", id, "connection reset");
        }
        return super.setValue(id, key, value);
      }
    })();
    const { logger, warnings } = warningLogger();
    const session = await openSession(store, "s", {
      contextLimit: 20_000,
      compactor: false,
      logger,
    });
    await session.addUserText("read the big file");
    await session.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: {} }]);
    const big = Array.from({ length: 4000 }, (_, line) => `line ${line} SECRET-${line}`).join("\n");
    const message = await session.addToolResults([
      { type: "tool_result", toolUseId: "t1", content: big },
    ]);
    expect(warnings.join(" ")).toMatch("could not keep what clamping cut");
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(JSON.stringify(message))![1]!;
    const record = await session.recall(handle);
    expect(record.kind === "tool_result" && String(record.original.content)).toContain(
      "SECRET-3999",
    );
  });

  it("drops the thinking of a reply written against an older head, and closes its tool exchange", async () => {
    const store = new MemoryStore();
    const slow = await openSession(store, "s", LIMIT);
    await fill(slow, 4);
    await slow.addUserText("list the files");
    // Another worker compacts while this one waits for the model.
    const compacting = await openSession(store, "s", summarizer());
    await compacting.forceCompact();
    const reply = await slow.addAssistant([
      { type: "thinking", thinking: "I should list them", signature: "sig-old-prefix" },
      { type: "tool_use", id: "toolu_1", name: "ls", input: {} },
    ]);
    expect(reply.content[0]?.type).toBe("thinking");
    for (const session of [slow, await openSession(store, "s", LIMIT)]) {
      const stored = session.messages.find((message) => message.id === reply.id)!;
      expect(stored.content.map((block) => block.type)).toEqual(["tool_use"]);
    }
    await slow.addToolResults([{ type: "tool_result", toolUseId: "toolu_1", content: "a.ts" }]);
    const reader = await openSession(store, "s", LIMIT);
    expect(reader.messages.slice(-2).map((message) => message.role)).toEqual(["assistant", "user"]);
    expect(validateConversation(reader.messages)).toEqual([]);
    // A reply written against the current head keeps its thinking.
    const fresh = await reader.addAssistant([
      { type: "thinking", thinking: "now", signature: "sig-current" },
      { type: "text", text: "done" },
    ]);
    await slow.refresh();
    expect(slow.messages.at(-1)).toEqual(fresh);
  });

  it("keeps pins across another worker's compaction, and recalls what it removed", async () => {
    const store = new MemoryStore();
    const a = await openSession(store, "s", LIMIT);
    const rule = await a.addUserText("Always answer in French.", { pinned: true });
    await a.addAssistant([{ type: "text", text: "D'accord." }]);
    await fill(a, 3);
    const early = a.messages[2]!;
    await a.pin(early.id);
    await expect(a.pin("no-such-message")).rejects.toSatisfy(ValidationError.isInstance);
    const b = await openSession(store, "s", summarizer());
    await b.forceCompact();
    const reader = await openSession(store, "s", LIMIT);
    expect(reader.messages).toContainEqual(rule);
    expect(reader.messages).toContainEqual(early);
    const summary = reader.messages
      .flatMap((message) => message.content)
      .map((block) => (block.type === "text" ? block.text : ""))
      .join("\n");
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(summary)?.[1];
    expect(handle).toBeDefined();
    const record = await reader.recall(handle!);
    expect(record.kind).toBe("messages");
  });
});
