import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { openSession } from "../../src/store/stored-session.js";
import type { StoreHarness } from "./store-contract.js";
import { delegate } from "./support/delegate.js";

const newId = () => `conversation-${randomUUID()}`;

/** A store that fails loudly once `limit` appends were tried: a write that would retry forever. */
function bounded(store: SessionStore, limit = 20): SessionStore {
  let appends = 0;
  return delegate(store, {
    append: (...args) => {
      appends += 1;
      if (appends > limit) return Promise.reject(new Error(`${appends} appends: a retry loop`));
      return store.append(...args);
    },
  });
}

/** A `ValidationError` about the stored data of `sessionId`. */
const aboutStored = (sessionId: string) => (error: unknown) =>
  ValidationError.isInstance(error) &&
  error.message.includes(`stored session ${JSON.stringify(sessionId)}`);

/** A `ValidationError` about a session id. */
const aboutSessionId = (error: unknown) =>
  ValidationError.isInstance(error) && error.message.includes("Invalid session id");

/** The cases of "stores lose nothing and mix nothing" every store passes. */
export function integrityCases(get: () => Promise<StoreHarness>, canLose: boolean): void {
  it("refuses session ids that are not well-formed UTF-16 or hold a NUL, so no two ids share a session", async () => {
    const h = await get();
    const store = await h.open();
    const base = newId();
    const illFormed = [`${base}\uD800`, `${base}\uDC00`, `${base}\uDC00\uD800`, `${base}\u0000`];
    for (const id of illFormed) {
      await expect(store.read(id, 0)).rejects.toSatisfy(aboutSessionId);
      await expect(store.append(id, { tail: 0, version: 0 }, "{}")).rejects.toSatisfy(
        aboutSessionId,
      );
      await expect(store.swapHead(id, 0, { through: 0, data: "{}" })).rejects.toSatisfy(
        aboutSessionId,
      );
      await expect(store.acquireLease(id, "worker", 1000)).rejects.toSatisfy(aboutSessionId);
      await expect(store.setValue(id, "key", "value")).rejects.toSatisfy(aboutSessionId);
      await expect(store.deleteSession(id)).rejects.toSatisfy(aboutSessionId);
      await expect(openSession(store, id, { contextLimit: 200_000 })).rejects.toSatisfy(
        aboutSessionId,
      );
    }
    expect(await store.read(base, 0)).toMatchObject({ tail: 0, records: [] });
    // Pairs are well-formed: an emoji id is a session of its own.
    const emoji = `${base}\uD83D\uDE00`;
    expect(await store.append(emoji, { tail: 0, version: 0 }, "{}")).toEqual({
      appended: true,
      seq: 1,
    });
    expect((await store.read(emoji, 0)).records).toEqual([{ seq: 1, data: "{}" }]);
    expect((await store.read(`${base}\uD83D\uDE01`, 0)).tail).toBe(0);
    await expect(store.getValue(base, "nul\u0000key")).rejects.toSatisfy(
      ValidationError.isInstance,
    );
  });

  it("a session emptied behind a worker's back (a restart without persistence) fails its next write, typed, without a retry loop", async () => {
    const h = await get();
    const id = newId();
    const worker = await openSession(bounded(await h.open()), id, { contextLimit: 200_000 });
    await worker.addUserText("first request");
    await worker.addAssistant([{ type: "text", text: "first answer" }]);
    await (await h.open()).deleteSession(id);
    await expect(worker.addUserText("after the wipe")).rejects.toSatisfy(aboutStored(id));
    await expect(worker.refresh()).rejects.toSatisfy(aboutStored(id));
    const store = await h.open();
    expect(await store.read(id, 0)).toMatchObject({ tail: 0, records: [] });
    await expect(store.read(id, 2)).rejects.toSatisfy(
      (error) => aboutStored(id)(error) && String(error).includes("tail"),
    );
  });

  // A store that keeps nothing outside the process (memory) cannot lose records under its tail.
  if (!canLose) return;
  it("records lost under the stored tail (a lagging replica) are a typed error naming the session, never a retry loop", async () => {
    const h = await get();
    if (h.lose === undefined) throw new Error("a store that can lose records needs lose()");
    const id = newId();
    const first = await openSession(bounded(await h.open()), id, { contextLimit: 200_000 });
    const second = await openSession(bounded(await h.open()), id, { contextLimit: 200_000 });
    await first.addUserText("first request");
    await first.addAssistant([{ type: "text", text: "first answer" }]);
    await second.refresh();
    await second.addUserText("second request");
    // The last record is gone, the tail still names it.
    await h.lose(id, 3);
    await expect(first.addUserText("a request that never lands")).rejects.toSatisfy(
      aboutStored(id),
    );
    await expect(openSession(await h.open(), id, { contextLimit: 200_000 })).rejects.toSatisfy(
      (error) => aboutStored(id)(error) && String(error).includes("log"),
    );
    const store = await h.open();
    await expect(store.read(id, 0)).rejects.toSatisfy(aboutStored(id));
    await expect(store.append(id, { tail: 2, version: 0 }, "{}")).rejects.toSatisfy(
      aboutStored(id),
    );
  });
}
