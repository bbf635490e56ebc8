import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { LLMCompactor } from "../../src/index.js";
import type { CompactionEvent } from "../../src/session/events.js";
import { openSession } from "../../src/store/stored-session.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { manualTimers } from "../support/manual-timers.js";
import {
  fill,
  gatedClient,
  type StoreHarness,
  summarizing,
  summarizingWhenDue,
} from "./store-contract.js";
import { outageCases } from "./store-outage.js";
import { delegate, signal } from "./support/delegate.js";

const newId = () => `conversation-${randomUUID()}`;

/** A summarizer that answers at once. */
function ready(summary?: string) {
  const gated = gatedClient(summary);
  gated.open();
  return gated.client;
}

/** What happens after a part of a stored session fails: every store passes these. */
export function faultCases(get: () => Promise<StoreHarness>): void {
  it("a compaction that archived and never swapped its head blocks no later worker", async () => {
    const h = await get();
    const id = newId();
    await fill(await openSession(await h.open(), id, { contextLimit: 200_000 }), 6);
    // The head's swap is cut (the connection dropped, as a worker killed there would leave it).
    const { store, dropped } = await h.dropping();
    const dying = await openSession(store, id, summarizing(ready("never lands")));
    await expect(dying.forceCompact()).rejects.toThrow();
    await dropped;
    // One fresh worker per request: each one's compaction lands.
    for (let request = 1; request <= 3; request += 1) {
      const worker = await openSession(
        await h.open(),
        id,
        summarizingWhenDue(ready(`summary ${request}`)),
      );
      await fill(worker, 2, `request ${request}`);
      const report = await worker.maybeCompact();
      expect(report.error).toBeUndefined();
      expect(report).toMatchObject({ compacted: true });
      expect(worker.position.version).toBe(request);
    }
  });

  it("a summary that arrives after another worker's commit is discarded as a conflict, without an error", async () => {
    const h = await get();
    const id = newId();
    await fill(await openSession(await h.open(), id, { contextLimit: 200_000 }), 6);
    const late = gatedClient("the late summary");
    const slow = await openSession(await h.open(), id, {
      ...summarizingWhenDue(late.client),
      maxAttempts: 1,
    });
    const report = slow.maybeCompact();
    await late.running;
    // Another worker, past the slow one's lease, compacts first, a turn later: it archives
    // other messages than the slow one.
    const later = () => new Date(Date.now() + 3_600_000);
    const fast = await openSession(await h.open({ clock: later }), id, summarizing(ready()));
    await fill(fast, 1, "one more");
    await fast.forceCompact();
    late.open();
    const stale = await report;
    expect(stale.error).toBeUndefined();
    expect(stale).toMatchObject({ compacted: false, discarded: "conflict" });
    const reader = await openSession(await h.open(), id, { contextLimit: 200_000 });
    expect(reader.position.version).toBe(1);
    expect(JSON.stringify(reader.messages)).not.toContain("the late summary");
  });

  it("a result clamped between another worker's archive write and its head swap keeps its own recall handle", async () => {
    const h = await get();
    const id = newId();
    await fill(await openSession(await h.open(), id, { contextLimit: 200_000 }), 6);
    const base = await h.open();
    const swapping = signal();
    const release = signal();
    const paused = delegate(base, {
      swapHead: async (...args) => {
        swapping.resolve();
        await release.promise;
        return base.swapHead(...args);
      },
    });
    const compacting = await openSession(paused, id, summarizing(ready()));
    const compaction = compacting.forceCompact();
    await swapping.promise; // archived; the head's swap is on its way
    const events: CompactionEvent[] = [];
    const clamping = await openSession(await h.open(), id, {
      contextLimit: 20_000,
      maxBlockShare: 0.05,
      onEvent: (event) => events.push(event),
    });
    await clamping.addAssistant([
      { type: "tool_use", id: "toolu_log", name: "read_log", input: {} },
    ]);
    const log = `build log\n${"line of output\n".repeat(4_000)}`;
    await clamping.addToolResults([
      { type: "tool_result", tool_use_id: "toolu_log", content: log },
    ]);
    const clamped = events.find((event) => event.type === "content_clamped");
    const handle = clamped?.type === "content_clamped" ? clamped.handle : undefined;
    expect(handle).toBeDefined();
    release.resolve();
    expect((await compaction).turnsCompacted).toBeGreaterThan(0);
    // The clamped original is under its handle, for the clamping worker and any other.
    const reader = await openSession(await h.open(), id, { contextLimit: 20_000 });
    for (const worker of [clamping, reader]) {
      const record = await worker.recall(handle!);
      expect(record.kind === "tool_result" && record.original.content).toBe(log);
    }
  });

  it("the circuit breaker is the session's: one worker per request tries a summarizer that is down 3 times in all", async () => {
    const h = await get();
    const id = newId();
    const down = new MockLlmClient({ defaultReply: new Error("503 service unavailable") });
    const now = new Date("2026-12-20T10:00:00Z");
    for (let request = 1; request <= 8; request += 1) {
      const worker = await openSession(await h.open(), id, {
        contextLimit: 20_000,
        compactor: false,
        clock: () => now,
        llmCompactor: new LLMCompactor(down, { keepRecentTurns: 1, threshold: 0.05 }),
      });
      await worker.addUserText(`request ${request}: ${"detail ".repeat(400)}`);
      await worker.maybeCompact();
      expect(worker.contextUsed).toBeLessThanOrEqual(20_000);
      await worker.addAssistant([
        { type: "text", text: `answer ${request} ${"word ".repeat(400)}` },
      ]);
    }
    expect(down.callCount).toBe(3);
  });

  it("a window a refusal named is the session's: a fresh worker measures by it", async () => {
    const h = await get();
    const id = newId();
    const first = await openSession(await h.open(), id, { contextLimit: 40_000 });
    await first.recordContextOverflow({ windowTokens: 12_000, requestTokens: 41_000 });
    expect(first.contextLimit).toBe(12_000);
    const events: CompactionEvent[] = [];
    const next = await openSession(await h.open(), id, {
      contextLimit: 40_000,
      onEvent: (event) => events.push(event),
    });
    expect(next.contextLimit).toBe(12_000);
    expect(events).toEqual([
      expect.objectContaining({
        type: "context_window_warning",
        problem: expect.objectContaining({ kind: "refused_above_window", modelWindow: 12_000 }),
      }),
    ]);
  });

  it("a hung store call ends within storeTimeoutMs and frees the lease: another worker compacts", async () => {
    const h = await get();
    const id = newId();
    await fill(await openSession(await h.open(), id, { contextLimit: 200_000 }), 6);
    const base = await h.open();
    const swapping = signal();
    const hung = delegate(base, {
      swapHead: () => {
        swapping.resolve();
        return new Promise<boolean>(() => {});
      },
    });
    const manual = manualTimers();
    const stuck = await openSession(hung, id, {
      ...summarizingWhenDue(ready()),
      storeTimeoutMs: 5_000,
      leaseMs: 60_000,
      timers: manual.timers,
    });
    const report = stuck.maybeCompact();
    await swapping.promise;
    // While the swap hangs the lease is held, and another worker finds it so.
    const blocked = await openSession(await h.open(), id, summarizingWhenDue(ready()));
    expect(await blocked.maybeCompact()).toMatchObject({ discarded: "lease_held" });
    expect(manual.pending).toContain(5_000);
    manual.fire(5_000);
    // A store outage is reported, never a rejection of maybeCompact (review 58f).
    const failed = await report;
    expect(failed).toMatchObject({ compacted: false, error: { code: "store_error" } });
    expect(failed.error?.cause).toMatchObject({ name: "StoreError", code: "timeout" });
    const other = await openSession(await h.open(), id, summarizingWhenDue(ready("the summary")));
    const landed = await other.maybeCompact();
    expect(landed.discarded).toBeUndefined();
    expect(landed.compacted).toBe(true);
  });

  outageCases(get);
}
