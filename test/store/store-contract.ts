import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import type { Clock } from "../../src/core/message-factory.js";
import { LLMCompactor, type LlmClient } from "../../src/index.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { openSession, type StoredSession } from "../../src/store/stored-session.js";
import type { StoredSessionOptions } from "../../src/store/stored-session-options.js";
import { ConversationBuilder } from "../../src/testing/index.js";
import { faultCases } from "./store-faults.js";
import { integrityCases } from "./store-integrity.js";

/** How a store's tests reach it. */
export interface StoreHarness {
  /** A store as one worker has it (its own connection, where the store has connections). */
  open(options?: { clock?: Clock }): Promise<SessionStore>;
  /**
   * A store whose connection drops (or, without one, whose write crashes) during the next head
   * swap, before the swap takes effect; the promise resolves once it has dropped.
   */
  dropping(): Promise<{ store: SessionStore; dropped: Promise<void> }>;
  /** Overwrites stored record `seq` in place, bypassing the store, when the store has a place. */
  corrupt?(sessionId: string, seq: number, data: string): Promise<void>;
  /** Deletes stored record `seq` and keeps the tail, bypassing the store (records lost). */
  lose?(sessionId: string, seq: number): Promise<void>;
  close(): Promise<void>;
}

/** A summarizer that answers when told to: a compaction's summary in flight, on cue. */
export function gatedClient(summary = "the early turns, summarized") {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const client: LlmClient = {
    complete: async () => {
      started();
      await gate;
      return summary;
    },
  };
  return { client, open, running };
}

/** Options of a session that summarizes on `forceCompact` and keeps the latest turn. */
export function summarizing(client: LlmClient, extra: Partial<StoredSessionOptions> = {}) {
  return {
    contextLimit: 200_000,
    compactor: false as const,
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
    ...extra,
  } satisfies StoredSessionOptions;
}

/** Options of a session that summarizes in `maybeCompact` as soon as anything is there. */
export function summarizingWhenDue(client: LlmClient) {
  return {
    contextLimit: 200_000,
    compactor: false as const,
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1, threshold: 0.001 }),
  } satisfies StoredSessionOptions;
}

/** Fills a session with `turns` user/assistant turns. */
export async function fill(session: StoredSession, turns: number, label = "turn") {
  for (let index = 1; index <= turns; index += 1) {
    await session.addUserText(`${label} ${index}: ${"a request with some detail ".repeat(8)}`);
    await session.addAssistant([{ type: "text", text: `answer ${index} ${"words ".repeat(30)}` }]);
  }
}

const ids = (session: StoredSession) => session.messages.map((message) => message.id);
const texts = (session: StoredSession) =>
  session.messages.map((message) =>
    message.content.map((block) => (block.type === "text" ? block.text : block.type)).join(""),
  );

/**
 * The fault and concurrency cases every store passes. `canLose`: the harness has `lose` (a
 * store whose records can go missing under its tail, as a lagging replica's do).
 */
export function storeContract(
  name: string,
  makeHarness: () => Promise<StoreHarness>,
  { canLose = true }: { canLose?: boolean } = {},
) {
  describe(`${name} store: many workers, faults`, () => {
    let harness: StoreHarness | undefined;
    const get = async () => {
      harness ??= await makeHarness();
      return harness;
    };
    afterAll(async () => harness?.close());
    const newId = () => `conversation-${randomUUID()}`;

    it("8 workers appending 1,000 messages to one session concurrently lose none, and all see one order", async () => {
      const h = await get();
      const id = newId();
      const workers = await Promise.all(
        Array.from({ length: 8 }, async () =>
          openSession(await h.open(), id, { contextLimit: 10_000_000, compactor: false }),
        ),
      );
      const written = workers.map(() => [] as string[]);
      await Promise.all(
        workers.map(async (worker, w) => {
          for (let index = 0; index < 125; index += 1) {
            const text = `worker ${w} message ${index}`;
            if (index % 2 === 0) {
              written[w]!.push((await worker.addUserText(text)).id);
              continue;
            }
            // Messages built elsewhere, appended as they are.
            const [message] = new ConversationBuilder({ sessionId: id, idPrefix: `w${w}-${index}` })
              .user(text)
              .build();
            await worker.append(message!);
            written[w]!.push(message!.id);
          }
        }),
      );
      for (const worker of workers) await worker.refresh();
      const reader = await openSession(await h.open(), id, { contextLimit: 10_000_000 });
      const order = ids(reader);
      expect(order).toHaveLength(1000);
      expect(new Set(order).size).toBe(1000);
      for (const worker of workers) expect(ids(worker)).toEqual(order);
      // Each worker's messages are in the order it wrote them.
      for (const mine of written)
        expect(order.filter((entry) => mine.includes(entry))).toEqual(mine);
      expect(reader.position).toEqual({ tail: 1000, version: 0 });
    }, 120_000);

    it("a compaction computed while others append keeps every append, after the compacted prefix", async () => {
      const h = await get();
      const id = newId();
      const { client, open, running } = gatedClient();
      const compacting = await openSession(await h.open(), id, summarizing(client));
      await fill(compacting, 6);
      const before = ids(compacting);
      const result = compacting.forceCompact();
      await running;
      const others = await Promise.all(
        [0, 1].map(async () => openSession(await h.open(), id, { contextLimit: 200_000 })),
      );
      const appended: string[] = [];
      await Promise.all(
        others.map(async (worker, w) => {
          for (let index = 0; index < 10; index += 1)
            appended.push((await worker.addUserText(`meanwhile ${w}.${index}`)).id);
        }),
      );
      open();
      const compaction = await result;
      expect(compaction.turnsCompacted).toBe(5);
      const reader = await openSession(await h.open(), id, { contextLimit: 200_000 });
      expect(reader.position.version).toBe(1);
      expect(texts(reader)[0]).toContain("the early turns, summarized");
      // The kept turn, then every append in the order the store took them.
      expect(ids(reader).slice(-22, -20)).toEqual(before.slice(-2));
      expect(ids(reader).slice(-20).sort()).toEqual([...appended].sort());
      expect(ids(compacting)).toEqual(ids(reader));
      for (const worker of others) {
        await worker.refresh();
        expect(ids(worker)).toEqual(ids(reader));
      }
    });

    it("two workers compacting at once apply at most one result", async () => {
      const h = await get();
      const id = newId();
      const first = gatedClient("summary by the first worker");
      const second = gatedClient("summary by the second worker");
      const a = await openSession(
        await h.open(),
        id,
        summarizing(first.client, { maxAttempts: 1 }),
      );
      await fill(a, 6);
      // The second worker's clock is past the first one's lease: both pay for a summary, and
      // only the head's compare-and-swap decides.
      const later: Clock = () => new Date(Date.now() + 3_600_000);
      const b = await openSession(
        await h.open({ clock: later }),
        id,
        summarizing(second.client, { maxAttempts: 1 }),
      );
      const results = [a.forceCompact()];
      await first.running;
      results.push(b.forceCompact());
      await second.running;
      first.open();
      second.open();
      const settled = await Promise.allSettled(results);
      const applied = settled.filter((outcome) => outcome.status === "fulfilled");
      expect(applied).toHaveLength(1);
      const rejected = settled.find((outcome) => outcome.status === "rejected");
      expect(rejected?.status === "rejected" && rejected.reason).toMatchObject({ code: "aborted" });
      const reader = await openSession(await h.open(), id, { contextLimit: 200_000 });
      expect(reader.position.version).toBe(1);
      const summaries = texts(reader).filter((text) => text.includes("summary by"));
      expect(summaries).toHaveLength(1);
    });

    it("a lease held by a dead worker keeps others from summarizing only until it expires", async () => {
      const h = await get();
      const id = newId();
      const start = Date.now();
      const dead = await h.open({ clock: () => new Date(start) });
      const writer = await openSession(dead, id, { contextLimit: 200_000 });
      await fill(writer, 6);
      expect(await dead.acquireLease(id, "dead-worker", 30_000)).toBe(true);
      const soon = await openSession(
        await h.open({ clock: () => new Date(start + 29_000) }),
        id,
        summarizingWhenDue(gatedClient().client),
      );
      const blocked = await soon.maybeCompact();
      expect(blocked).toMatchObject({ compacted: false, discarded: "lease_held" });
      const ready = gatedClient();
      ready.open();
      const expired = await openSession(
        await h.open({ clock: () => new Date(start + 30_001) }),
        id,
        summarizingWhenDue(ready.client),
      );
      const report = await expired.maybeCompact();
      expect(report.compacted).toBe(true);
      expect(report.discarded).toBeUndefined();
      expect(expired.position.version).toBe(1);
    });

    it("a connection dropped mid-compaction leaves the history as it was, and a retry applies", async () => {
      const h = await get();
      const id = newId();
      const writer = await openSession(await h.open(), id, { contextLimit: 200_000 });
      await fill(writer, 6);
      const before = await (await h.open()).read(id, 0);
      const { store, dropped } = await h.dropping();
      const { client, open } = gatedClient();
      const session = await openSession(store, id, summarizing(client));
      const result = session.forceCompact();
      open();
      await expect(result).rejects.toThrow();
      await dropped;
      const after = await (await h.open()).read(id, 0);
      expect(after).toEqual(before);
      const again = gatedClient();
      const healthy = await openSession(await h.open(), id, summarizing(again.client));
      const applied = healthy.forceCompact();
      again.open();
      expect((await applied).turnsCompacted).toBe(5);
      expect(healthy.position.version).toBe(1);
    });

    it("bad stored data is a ValidationError naming the session and the field, and nothing is overwritten", async () => {
      const h = await get();
      const store = await h.open();
      const id = newId();
      const early = await openSession(store, id, summarizing(gatedClient().client));
      await fill(early, 2);
      const position = early.position;
      // A record from a newer format, then a corrupted one.
      const newer = JSON.stringify({ format: 2, headVersion: 0, kind: "messages", messages: [] });
      expect(await store.append(id, position, newer)).toEqual({
        appended: true,
        seq: position.tail + 1,
      });
      const raw = await store.read(id, 0);
      const open = () => openSession(store, id, { contextLimit: 200_000 });
      await expect(open()).rejects.toSatisfy(
        (error) =>
          ValidationError.isInstance(error) &&
          error.message.includes(`stored session "${id}"`) &&
          error.message.includes(`log[${position.tail + 1}].format`) &&
          error.message.includes("newer"),
      );
      // A worker that read the session before: its writes refuse too, and write nothing.
      await expect(early.addUserText("one more")).rejects.toSatisfy(ValidationError.isInstance);
      await expect(early.forceCompact()).rejects.toSatisfy(ValidationError.isInstance);
      expect(await store.read(id, 0)).toEqual(raw);

      const broken = newId();
      const second = await openSession(store, broken, { contextLimit: 200_000 });
      await fill(second, 1);
      if (h.corrupt) await h.corrupt(broken, 2, '{"format":1,"headVersion":0,"kind":"mess');
      else await store.append(broken, second.position, '{"format":1,"headVersion":0,"kind":"mess');
      const corrupted = await store.read(broken, 0);
      await expect(openSession(store, broken, { contextLimit: 200_000 })).rejects.toSatisfy(
        (error) =>
          ValidationError.isInstance(error) &&
          error.message.includes(`stored session "${broken}"`) &&
          /log\[\d+\]: is not valid JSON/.test(error.message),
      );
      expect(await store.read(broken, 0)).toEqual(corrupted);

      const badHead = newId();
      const third = await openSession(store, badHead, { contextLimit: 200_000 });
      await fill(third, 1);
      expect(
        await store.swapHead(badHead, 0, { through: 2, data: '{"format":1,"snapshot":{}}' }),
      ).toBe(true);
      await expect(openSession(store, badHead, { contextLimit: 200_000 })).rejects.toSatisfy(
        (error) =>
          ValidationError.isInstance(error) &&
          error.message.includes(`stored session "${badHead}"`) &&
          error.message.includes("head.snapshot.version"),
      );
    });

    it("swaps a head only at the version read and within the log, and sends it only to callers without it", async () => {
      const h = await get();
      const store = await h.open();
      const id = newId();
      for (let tail = 0; tail < 3; tail += 1)
        expect(await store.append(id, { tail, version: 0 }, `{"record":${tail + 1}}`)).toEqual({
          appended: true,
          seq: tail + 1,
        });
      expect(await store.swapHead(id, 0, { through: 4, data: "beyond the tail" })).toBe(false);
      expect(await store.swapHead(id, 1, { through: 2, data: "a version never read" })).toBe(false);
      expect(await store.swapHead(id, 0, { through: 2, data: "head 1" })).toBe(true);
      expect(await store.swapHead(id, 0, { through: 3, data: "lost the race" })).toBe(false);
      expect(await store.swapHead(id, 1, { through: 1, data: "covers less" })).toBe(false);
      const state = await store.read(id, 0);
      expect(state).toEqual({
        tail: 3,
        version: 1,
        through: 2,
        head: "head 1",
        records: [{ seq: 3, data: '{"record":3}' }],
      });
      expect((await store.read(id, 0, 1)).head).toBeUndefined();
      expect((await store.read(id, 3, 0)).head).toBe("head 1");
      // A stale position is refused, with what it missed.
      const refused = await store.append(id, { tail: 1, version: 0 }, "{}");
      expect(refused).toEqual({ appended: false, state: { ...state, records: state.records } });
      const behind = await store.append(id, { tail: 3, version: 0 }, "{}");
      expect(behind).toMatchObject({ appended: false, state: { version: 1, head: "head 1" } });
    });

    it("keeps a small key/value area per session, and deletes a session whole", async () => {
      const h = await get();
      const store = await h.open();
      const id = newId();
      expect(await store.getValue(id, "archive")).toBeUndefined();
      await store.setValue(id, "archive", "one");
      await store.setValue(id, "archive", "two");
      expect(await store.getValue(id, "archive")).toBe("two");
      const session = await openSession(store, id, { contextLimit: 200_000 });
      await fill(session, 1);
      await store.deleteSession(id);
      expect(await store.getValue(id, "archive")).toBeUndefined();
      expect(await store.read(id, 0)).toEqual({
        tail: 0,
        version: 0,
        through: 0,
        head: undefined,
        records: [],
      });
    });

    integrityCases(get, canLose);
    faultCases(get);
  });
}
