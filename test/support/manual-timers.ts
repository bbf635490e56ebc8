import type { Timers } from "../../src/testing/index.js";

/** Timers a test fires by hand: a deadline passes exactly when the test says so, never by waiting. */
export function manualTimers() {
  const pending = new Map<object, { callback: () => void; milliseconds: number }>();
  const timers: Timers = {
    setTimeout: ((callback: () => void, milliseconds = 0) => {
      const handle = {};
      pending.set(handle, { callback, milliseconds });
      return handle;
    }) as unknown as Timers["setTimeout"],
    clearTimeout: ((handle: object | undefined) => {
      if (handle) pending.delete(handle);
    }) as unknown as Timers["clearTimeout"],
  };
  /** Fires the pending timers set for `milliseconds` (all of them without it); how many it fired. */
  const fire = (milliseconds?: number): number => {
    const due = [...pending].filter(
      ([, timer]) => milliseconds === undefined || timer.milliseconds === milliseconds,
    );
    for (const [handle] of due) pending.delete(handle);
    for (const [, timer] of due) timer.callback();
    return due.length;
  };
  return {
    timers,
    fire,
    /** Fires every pending timer; how many there were. */
    fireAll: () => fire(),
    /** The delays of the pending timers. */
    get pending(): number[] {
      return [...pending.values()].map((timer) => timer.milliseconds);
    },
    get pendingCount(): number {
      return pending.size;
    },
  };
}
