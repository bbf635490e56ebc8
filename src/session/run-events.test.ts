import { describe, expect, it } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { AsyncCompactor } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession, type StoredSession } from "../store/stored-session.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";
import type { CompactionEvent } from "./events.js";

const NOTHING = { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 };
/** A session due for a summary by `llmCompactor`, its events in `events`. */
function dueSession(llmCompactor: AsyncCompactor, events: CompactionEvent[]): AgentSession {
  const session = new AgentSession({
    contextLimit: 4_000,
    compactor: false,
    llmCompactor,
    onEvent: (event) => events.push(event),
  });
  session.append(...fourReads(session.sessionId));
  return session;
}

async function fill(session: StoredSession, turns: number, label: string): Promise<void> {
  for (let turn = 1; turn <= turns; turn += 1) {
    await session.addUserText(`${label} ${turn}: ${"a request with some detail ".repeat(8)}`);
    await session.addAssistant([{ type: "text", text: `answer ${turn} ${"words ".repeat(30)}` }]);
  }
}

/** The `runId` of each event of a run, by type. */
const runIds = (events: CompactionEvent[]) =>
  events.map((event) => [event.type, "runId" in event ? event.runId : undefined]);

describe("the events that end a run name it", () => {
  it("compaction_end, compaction_failed and compaction_skipped carry their start's runId", async () => {
    const ends: unknown[] = [];
    const unchanged = {
      isAsync: true,
      shouldCompact: () => true,
      compact: (conversation: readonly Message[]) => ({
        conversation: [...conversation],
        result: NOTHING,
      }),
      compactAsync: async (conversation: readonly Message[]) => ({
        conversation: [...conversation],
        result: NOTHING,
      }),
    } as AsyncCompactor;
    for (const compactor of [
      new LLMCompactor(new MockLlmClient().reply("Goal: fix the build."), { keepRecentTurns: 1 }),
      new LLMCompactor(new MockLlmClient().fail(new Error("overloaded")), { keepRecentTurns: 1 }),
      unchanged,
    ]) {
      const events: CompactionEvent[] = [];
      await dueSession(compactor, events).maybeCompact();
      const [started, ended] = events;
      expect(started?.type).toBe("compaction_start");
      const runId = started?.type === "compaction_start" ? started.runId : undefined;
      expect(runId).toMatch(/^[0-9a-f-]{36}$/);
      expect(runIds([ended!])).toEqual([[ended?.type, runId]]);
      ends.push(ended?.type);
    }
    expect(ends).toEqual(["compaction_end", "compaction_failed", "compaction_skipped"]);
  });
});

describe("a forceCompact that rejects reports compaction_failed", () => {
  it("when another worker won every race (maxAttempts): aborted", async () => {
    const store = new MemoryStore();
    const id = "conversation-raced";
    await fill(await openSession(store, id, { contextLimit: 200_000 }), 6, "turn");
    const later = store.withClock(() => new Date(Date.now() + 3_600_000));
    let attempt = 0;
    const summarizer = {
      complete: async () => {
        attempt += 1;
        // Another worker, past this one's lease, compacts while this one summarizes, and goes on.
        const fast = await openSession(later, id, {
          contextLimit: 200_000,
          compactor: false,
          llmCompactor: new LLMCompactor(new MockLlmClient().reply("fast"), {
            keepRecentTurns: 1,
          }),
        });
        await fill(fast, 1, `more ${attempt}`);
        await fast.forceCompact();
        await fill(fast, 3, `after ${attempt}`);
        return "the late summary";
      },
    };
    const events: CompactionEvent[] = [];
    const slow = await openSession(store, id, {
      contextLimit: 200_000,
      compactor: false,
      llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1 }),
      maxAttempts: 2,
      onEvent: (event) => events.push(event),
    });
    await expect(slow.forceCompact()).rejects.toMatchObject({ code: "aborted" });
    expect(events.map((event) => [event.type, "reason" in event ? event.reason : ""])).toEqual([
      ["compaction_start", ""],
      ["compaction_skipped", "conflict"],
      ["compaction_start", ""],
      ["compaction_skipped", "conflict"],
      ["compaction_failed", ""],
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "compaction_failed",
      trigger: "manual",
      strategy: "llm",
      error: { code: "aborted" },
    });
  });

  it("when another worker held the lease past leaseMs: busy", async () => {
    const store = new MemoryStore();
    const events: CompactionEvent[] = [];
    const session = await openSession(store, "s", {
      contextLimit: 200_000,
      compactor: false,
      llmCompactor: new LLMCompactor(new MockLlmClient().reply("sum"), { keepRecentTurns: 1 }),
      leaseMs: 20,
      onEvent: (event) => events.push(event),
    });
    await fill(session, 3, "turn");
    expect(await store.acquireLease("s", "a-live-worker", 60_000)).toBe(true);
    await expect(session.forceCompact()).rejects.toMatchObject({ code: "busy" });
    expect(events).toEqual([
      expect.objectContaining({
        type: "compaction_failed",
        trigger: "manual",
        strategy: "llm",
        error: expect.objectContaining({ code: "busy" }),
      }),
    ]);
  });
});
