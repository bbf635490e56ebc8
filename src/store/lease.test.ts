import { describe, expect, it } from "vitest";
import { manualTimers } from "../../test/support/manual-timers.js";
import { Lease } from "./lease.js";
import { MemoryStore } from "./memory-store.js";
import type { SessionStore } from "./session-store.js";
import { StoreError } from "./store-error.js";
import { TimedStore } from "./timed-store.js";

/** A memory store whose `swapHead` never answers, counting lease calls. */
function hangingSwap() {
  const memory = new MemoryStore();
  const counts = { acquire: 0 };
  let settle: (value: boolean) => void = () => {};
  const store: SessionStore = {
    read: (...args) => memory.read(...args),
    append: (...args) => memory.append(...args),
    swapHead: () =>
      new Promise<boolean>((resolve) => {
        settle = resolve;
      }),
    acquireLease: (...args) => {
      counts.acquire += 1;
      return memory.acquireLease(...args);
    },
    releaseLease: (...args) => memory.releaseLease(...args),
    getValue: (...args) => memory.getValue(...args),
    setValue: (...args) => memory.setValue(...args),
    deleteSession: (...args) => memory.deleteSession(...args),
  };
  return { store, counts, settleSwap: (value: boolean) => settle(value) };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("TimedStore", () => {
  it("rejects a call that outlives its deadline with a StoreError timeout, stalled until it settles", async () => {
    const { store, settleSwap } = hangingSwap();
    const manual = manualTimers();
    const timed = new TimedStore(store, 1_000, manual.timers);
    expect(await timed.append("s", { tail: 0, version: 0 }, "{}")).toEqual({
      appended: true,
      seq: 1,
    });
    expect(manual.pendingCount).toBe(0);
    const swap = timed.swapHead("s", 0, { through: 1, data: "{}" });
    expect(timed.stalled).toBe(false);
    manual.fire(1_000);
    await expect(swap).rejects.toSatisfy(
      (error) =>
        StoreError.isInstance(error) &&
        error.code === "timeout" &&
        error.sessionId === "s" &&
        error.message.includes("swapHead did not answer within 1000 ms"),
    );
    expect(timed.stalled).toBe(true);
    settleSwap(false);
    await flush();
    expect(timed.stalled).toBe(false);
  });
});

describe("Lease", () => {
  it("renews every third of its time to live, and stops once its worker is stuck on a hung call", async () => {
    const { store, counts } = hangingSwap();
    const manual = manualTimers();
    const timed = new TimedStore(store, 1_000, manual.timers);
    const lease = new Lease(timed, "s", "worker", 30_000);
    expect(await lease.acquire()).toBe(true);
    expect(manual.pending).toEqual([10_000]);
    manual.fire(10_000);
    await flush();
    expect(counts.acquire).toBe(2);
    expect(manual.pending).toEqual([10_000]);
    // A call of this worker hangs past its deadline: the worker is stuck.
    const swap = timed.swapHead("s", 0, { through: 0, data: "{}" });
    swap.catch(() => {});
    manual.fire(1_000);
    manual.fire(10_000);
    await flush();
    expect(counts.acquire).toBe(2);
    expect(manual.pendingCount).toBe(0);
    await lease.release();
    // Given up: another worker takes it at once.
    expect(await store.acquireLease("s", "other", 30_000)).toBe(true);
  });
});
