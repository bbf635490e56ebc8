import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { CompactionError, LLMCompactor, validateConversation } from "../../src/index.js";
import type { CompactionEvent } from "../../src/session/events.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { StoreError } from "../../src/store/store-error.js";
import { openSession, type StoredSession } from "../../src/store/stored-session.js";
import type { StoredSessionOptions } from "../../src/store/stored-session-options.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { manualTimers } from "../support/manual-timers.js";
import type { StoreHarness } from "./store-contract.js";
import { delegate, signal } from "./support/delegate.js";

const newId = () => `conversation-${randomUUID()}`;
const LIMIT = 10_000;

/**
 * The store calls a test makes fail: `down.has(call)` rejects it, as a lost connection does;
 * `archive` and `circuit` fail the writes of the archive's keys or of the breaker's alone.
 */
function outage(base: SessionStore) {
  const down = new Set<keyof SessionStore | "archive" | "circuit">();
  const fail = (call: string, sessionId: string) =>
    Promise.reject(new StoreError("io_error", sessionId, `${call}: connection reset`));
  const store = delegate(base, {
    read: (id, ...rest) => (down.has("read") ? fail("read", id) : base.read(id, ...rest)),
    swapHead: (id, ...rest) =>
      down.has("swapHead") ? fail("swapHead", id) : base.swapHead(id, ...rest),
    acquireLease: (id, ...rest) =>
      down.has("acquireLease") ? fail("acquireLease", id) : base.acquireLease(id, ...rest),
    getValue: (id, key) => (down.has("getValue") ? fail("getValue", id) : base.getValue(id, key)),
    setValue: (id, key, value) =>
      down.has("setValue") ||
      (down.has("archive") && key.startsWith("archive:")) ||
      (down.has("circuit") && key === "circuit")
        ? fail("setValue", id)
        : base.setValue(id, key, value),
  });
  return { store, down };
}

/** A session that summarizes when due, with `turns` exchanges of about 1,000 tokens each. */
async function filled(store: SessionStore, id: string, turns: number, extra = {}) {
  const events: CompactionEvent[] = [];
  const options: StoredSessionOptions = {
    contextLimit: LIMIT,
    compactor: false,
    llmCompactor: new LLMCompactor(new MockLlmClient({ defaultReply: "the summary" }), {
      keepRecentTurns: 1,
    }),
    onEvent: (event) => events.push(event),
    ...extra,
  };
  const session = await openSession(store, id, options);
  for (let turn = 0; turn < turns; turn += 1) {
    await session.addUserText(`question ${turn} ${"q".repeat(4_000)}`);
    await session.addAssistant([{ type: "text", text: `answer ${turn}` }]);
  }
  await session.addUserText("the latest request");
  return { session, events };
}

/** The session as the store has it, read by a fresh worker. */
async function stored(h: StoreHarness, id: string): Promise<StoredSession> {
  return openSession(await h.open(), id, { contextLimit: LIMIT, compactor: false });
}

const storeFailure = (error: unknown) =>
  CompactionError.isInstance(error) &&
  error.code === "store_error" &&
  StoreError.isInstance(error.cause);

const failures = (events: CompactionEvent[]) =>
  events.flatMap((event) => (event.type === "compaction_failed" ? [event.error.code] : []));

/** A summarizer that is down, and the options of a session that summarizes with it when due. */
function down503() {
  const client = new MockLlmClient({ defaultReply: new Error("503 service unavailable") });
  const options = { llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }) };
  return { client, options };
}

/** Another worker of the session, with its own connection and (by default) a summarizer that is down. */
async function worker(h: StoreHarness, id: string, summarizer = down503()) {
  const options = { contextLimit: LIMIT, compactor: false as const, ...summarizer.options };
  return openSession(await h.open(), id, options);
}

/** A store outage never fails the request: every store passes these (review 58f). */
export function outageCases(get: () => Promise<StoreHarness>): void {
  it("a store that fails the head's swap, the read before or the lease: maybeCompact resolves with a store_error, nothing changed", async () => {
    const h = await get();
    for (const call of ["swapHead", "read", "acquireLease"] as const) {
      const id = newId();
      const { store, down } = outage(await h.open());
      const { session, events } = await filled(store, id, 8);
      const before = session.messages;
      down.add(call);
      const report = await session.maybeCompact();
      expect(report.error).toSatisfy(storeFailure);
      expect(report).toMatchObject({ compacted: false, overWindow: false });
      expect(failures(events)).toEqual(["store_error"]);
      expect(session.messages).toEqual(before);
      expect((await stored(h, id)).messages).toEqual(before);
      down.clear();
      expect(await session.maybeCompact()).toMatchObject({ compacted: true });
      expect((await stored(h, id)).messages).toEqual(session.messages);
    }
  });

  it("over the window with the store down, the last resort trims this worker's copy alone; the next call undoes it and stores the trim", async () => {
    const h = await get();
    // The swap alone fails, or the archive's writes too (the summary's failure comes first).
    const cases = [
      { calls: ["swapHead"], first: "store_error" },
      { calls: ["swapHead", "archive"], first: "archive_error" },
    ] as const;
    for (const { calls, first } of cases) {
      const id = newId();
      const { store, down } = outage(await h.open());
      const { session, events } = await filled(store, id, 12);
      const all = session.messages;
      expect(session.contextUsed).toBeGreaterThan(LIMIT);
      for (const call of calls) down.add(call);
      const report = await session.maybeCompact();
      expect(report.error?.code).toBe(first);
      expect(failures(events)).toEqual([first]);
      expect(report).toMatchObject({ compacted: true, overWindow: false });
      expect(report.trimmed?.length).toBeGreaterThan(0);
      expect(events.filter((event) => event.type === "context_trimmed")).toHaveLength(1);
      // The request fits; the store lost nothing.
      expect(session.contextUsed).toBeLessThanOrEqual(LIMIT);
      expect(validateConversation(session.messages)).toEqual([]);
      expect(session.messages.at(-1)).toEqual(all.at(-1));
      expect((await stored(h, id)).messages).toEqual(all);
      // The store is back: the reply is stored after everything the store kept, as here.
      down.clear();
      const reply = await session.addAssistant([{ type: "text", text: "done" }]);
      expect(session.messages).toEqual([...all, reply]);
      expect((await stored(h, id)).messages).toEqual(session.messages);
      await session.addUserText("the next request");
      const next = await session.maybeCompact();
      expect(next.error).toBeUndefined();
      expect(next.compacted).toBe(true);
      expect(session.contextUsed).toBeLessThanOrEqual(LIMIT);
      expect((await stored(h, id)).messages).toEqual(session.messages);
    }
  });

  it("a swap that landed but whose answer never came ends within storeTimeoutMs; the run reads it back, and the copy and the store agree", async () => {
    const h = await get();
    const id = newId();
    const base = await h.open();
    const swapping = signal();
    let late: Promise<boolean> | undefined;
    // The server takes the first swap, but its answer never comes back.
    const hung = delegate(base, {
      swapHead: (...args) => {
        if (late !== undefined) return base.swapHead(...args);
        late = base.swapHead(...args);
        swapping.resolve();
        return new Promise<boolean>(() => {});
      },
    });
    const manual = manualTimers();
    const { session, events } = await filled(hung, id, 12, {
      storeTimeoutMs: 5_000,
      timers: manual.timers,
    });
    const pending = session.maybeCompact();
    await swapping.promise;
    expect(await late).toBe(true);
    expect(manual.fire(5_000)).toBe(1);
    const report = await pending;
    expect(failures(events)).toEqual(["store_error"]);
    const failed = events.find((event) => event.type === "compaction_failed");
    expect(failed?.type === "compaction_failed" && failed.error.cause).toMatchObject({
      name: "StoreError",
      code: "timeout",
    });
    // The last resort's swap found the head that landed: read back, and under the window.
    expect(report.overWindow).toBe(false);
    expect(session.position.version).toBe(1);
    expect(session.contextUsed).toBeLessThanOrEqual(LIMIT);
    expect(session.messages).toEqual((await stored(h, id)).messages);
  });

  it("a swap that landed, the read after it failed: compacted, no error, and the next call reads what others appended meanwhile", async () => {
    const h = await get();
    const id = newId();
    const base = await h.open();
    let failNextRead = false;
    const store = delegate(base, {
      swapHead: async (...args) => {
        // Another worker appends while this one swaps; the read that follows fails.
        const other = await openSession(await h.open(), id, { contextLimit: LIMIT });
        await other.addAssistant([{ type: "text", text: "appended meanwhile" }]);
        failNextRead = true;
        return base.swapHead(...args);
      },
      read: (...args) => {
        if (!failNextRead) return base.read(...args);
        failNextRead = false;
        return Promise.reject(new StoreError("io_error", id, "read: connection reset"));
      },
    });
    const { session } = await filled(store, id, 8);
    const report = await session.maybeCompact();
    expect(report.error).toBeUndefined();
    expect(report.compacted).toBe(true);
    await session.refresh();
    expect(session.messages.at(-1)?.content).toEqual([
      { type: "text", text: "appended meanwhile" },
    ]);
    expect(session.messages).toEqual((await stored(h, id)).messages);
  });

  it("a breaker the store fails to take fails no compaction; forceCompact rejects with a typed store_error", async () => {
    const h = await get();
    const id = newId();
    const { store, down } = outage(await h.open());
    const { session } = await filled(store, id, 12, {
      llmCompactor: new LLMCompactor(new MockLlmClient({ defaultReply: new Error("503") }), {
        keepRecentTurns: 1,
      }),
    });
    down.add("setValue");
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("llm_error");
    expect(report.overWindow).toBe(false);
    expect((await stored(h, id)).messages).toEqual(session.messages);
    down.clear();
    down.add("swapHead");
    await session.addAssistant([{ type: "text", text: "answer" }]);
    await session.addUserText(`more ${"q".repeat(4_000)}`);
    const forced = await openSession(store, id, {
      contextLimit: LIMIT,
      compactor: false,
      llmCompactor: new LLMCompactor(new MockLlmClient({ defaultReply: "sum" }), {
        keepRecentTurns: 1,
      }),
    });
    await expect(forced.forceCompact()).rejects.toSatisfy(storeFailure);
  });

  it("a breaker write the store fails loses no failure: this worker's count goes into the next write that lands, with another worker's, and the failure is reported", async () => {
    const h = await get();
    const id = newId();
    const { store, down } = outage(await h.open());
    const a = down503();
    const { session, events } = await filled(store, id, 8, a.options);
    down.add("circuit");
    for (let call = 1; call <= 3; call += 1) {
      // The run's own failure is its report's (the first failure of a run is).
      expect((await session.maybeCompact()).error?.code).toBe("llm_error");
    }
    expect(failures(events)).toEqual(["llm_error", "llm_error", "llm_error"]);
    const tried = a.client.callCount;
    // Three in a row: open in this worker, though the store took none of them; the write of
    // the three fails again, and with nothing else to report, the report says so.
    const paused = await session.maybeCompact();
    expect(a.client.callCount).toBe(tried);
    expect(paused.error).toSatisfy(storeFailure);
    expect(paused.compacted).toBe(false);
    // Meanwhile another worker finds no failure stored: it tries, fails, and stores its one.
    const b = down503();
    const other = await worker(h, id, b);
    expect((await other.maybeCompact()).error?.code).toBe("llm_error");
    expect(b.client.callCount).toBeGreaterThan(0);
    // The store takes writes again: this worker's three are stored with the other's one.
    down.clear();
    const merged = await session.maybeCompact();
    expect(merged.error).toBeUndefined();
    expect(a.client.callCount).toBe(tried);
    const c = down503();
    const fresh = await worker(h, id, c);
    expect(fresh.toJSON()).toMatchObject({
      consecutiveFailures: 4,
      circuitOpenedAt: expect.any(String),
    });
    await fresh.maybeCompact();
    expect(c.client.callCount).toBe(0);
  });

  it("a close of the breaker the store did not take is merged too: the failures it forgave go, another worker's since stay", async () => {
    const h = await get();
    const id = newId();
    // Two failures stored by one worker.
    const b = down503();
    const { session: first } = await filled(await h.open(), id, 8, b.options);
    for (let call = 1; call <= 2; call += 1) await first.maybeCompact();
    expect((await worker(h, id)).toJSON().consecutiveFailures).toBe(2);
    // This worker's summary succeeds (a manual run closes the breaker); the store does not take it.
    const { store, down } = outage(await h.open());
    const summarizer = new LLMCompactor(new MockLlmClient({ defaultReply: "the summary" }), {
      keepRecentTurns: 1,
      threshold: 0.99,
    });
    const closing = await openSession(store, id, {
      contextLimit: LIMIT,
      compactor: false,
      llmCompactor: summarizer,
    });
    down.add("circuit");
    expect((await closing.forceCompact()).turnsCompacted).toBeGreaterThan(0);
    // Meanwhile a third worker, which never saw the close, fails once more: three stored, open.
    const third = await worker(h, id);
    for (let turn = 0; turn < 8; turn += 1) await third.addUserText(`more ${"q".repeat(4_000)}`);
    expect((await third.maybeCompact()).error?.code).toBe("llm_error");
    expect((await worker(h, id)).toJSON().consecutiveFailures).toBe(3);
    // The store takes writes again: the close is stored, and the failure it never saw stays.
    down.clear();
    expect((await closing.maybeCompact()).error).toBeUndefined();
    expect((await worker(h, id)).toJSON().consecutiveFailures).toBe(1);
  });

  it("a breaker write that landed though its answer never came is counted once", async () => {
    const h = await get();
    const id = newId();
    const base = await h.open();
    let lostAnswers = 1;
    const store = delegate(base, {
      setValue: async (id, key, value) => {
        await base.setValue(id, key, value);
        if (key === "circuit" && lostAnswers > 0) {
          lostAnswers -= 1;
          throw new StoreError("io_error", id, "setValue: connection reset");
        }
      },
    });
    const a = down503();
    const { session } = await filled(store, id, 8, a.options);
    expect((await session.maybeCompact()).error?.code).toBe("llm_error");
    expect((await worker(h, id)).toJSON().consecutiveFailures).toBe(1);
    expect((await session.maybeCompact()).error?.code).toBe("llm_error");
    expect((await worker(h, id)).toJSON().consecutiveFailures).toBe(2);
  });

  it("an idle maybeCompact on a store it cannot read resolves with a store_error, nothing due or the breaker open", async () => {
    const h = await get();
    for (const call of ["read", "getValue"] as const) {
      // Nothing due: the copy as last read says so, but the caller learns the store is down.
      const id = newId();
      const { store, down } = outage(await h.open());
      const { session, events } = await filled(store, id, 1);
      down.add(call);
      const report = await session.maybeCompact();
      expect(report).toMatchObject({ compacted: false, overWindow: false, results: [] });
      expect(report.error).toSatisfy(storeFailure);
      expect(failures(events)).toEqual([]);
      down.clear();
      expect((await session.maybeCompact()).error).toBeUndefined();
    }
    // Due, but the breaker is open (as last read): paused, and the read's failure reported.
    const id = newId();
    const { store, down } = outage(await h.open());
    const a = down503();
    const { session } = await filled(store, id, 8, a.options);
    for (let call = 1; call <= 3; call += 1) await session.maybeCompact();
    const tried = a.client.callCount;
    down.add("read");
    const report = await session.maybeCompact();
    expect(a.client.callCount).toBe(tried);
    expect(report.error).toSatisfy(storeFailure);
    down.clear();
    expect((await session.maybeCompact()).error).toBeUndefined();
  });
}
