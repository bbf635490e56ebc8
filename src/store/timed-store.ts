import type { Timers } from "../core/abort.js";
import type { AppendResult, SessionStore, StoredState, StorePosition } from "./session-store.js";
import { StoreError } from "./store-error.js";

/** The global timers, called as functions (a browser refuses `setTimeout` called on another object). */
const GLOBAL_TIMERS: Timers = {
  setTimeout: ((callback: () => void, milliseconds: number) =>
    globalThis.setTimeout(callback, milliseconds)) as Timers["setTimeout"],
  clearTimeout: ((timer: ReturnType<typeof globalThis.setTimeout>) =>
    globalThis.clearTimeout(timer)) as Timers["clearTimeout"],
};

/**
 * A store whose every call ends within `milliseconds`: one that does not answer by then
 * rejects with a `StoreError` `timeout` (the call itself may still complete on the server; a
 * write's effect is then read back like any other worker's). While a call that timed out has
 * not settled, the store is `stalled`: its worker is stuck, and stops renewing its lease.
 */
export class TimedStore implements SessionStore {
  readonly #store: SessionStore;
  readonly #milliseconds: number;
  readonly #timers: Timers;
  /** Calls that timed out and have not settled since. */
  #stalled = 0;

  constructor(store: SessionStore, milliseconds: number, timers: Timers = GLOBAL_TIMERS) {
    this.#store = store;
    this.#milliseconds = milliseconds;
    this.#timers = timers;
  }

  /** Whether a call that timed out still hangs (the connection, or the server, is stuck). */
  get stalled(): boolean {
    return this.#stalled > 0;
  }

  /** The timers its deadlines run on. */
  get timers(): Timers {
    return this.#timers;
  }

  read(sessionId: string, after: number, knownVersion?: number): Promise<StoredState> {
    return this.#within(sessionId, "read", () => this.#store.read(sessionId, after, knownVersion));
  }

  append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult> {
    return this.#within(sessionId, "append", () => this.#store.append(sessionId, expected, data));
  }

  swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean> {
    return this.#within(sessionId, "swapHead", () =>
      this.#store.swapHead(sessionId, expectedVersion, head),
    );
  }

  acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#within(sessionId, "acquireLease", () =>
      this.#store.acquireLease(sessionId, owner, ttlMs),
    );
  }

  releaseLease(sessionId: string, owner: string): Promise<void> {
    return this.#within(sessionId, "releaseLease", () =>
      this.#store.releaseLease(sessionId, owner),
    );
  }

  getValue(sessionId: string, key: string): Promise<string | undefined> {
    return this.#within(sessionId, "getValue", () => this.#store.getValue(sessionId, key));
  }

  setValue(sessionId: string, key: string, value: string): Promise<void> {
    return this.#within(sessionId, "setValue", () => this.#store.setValue(sessionId, key, value));
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.#within(sessionId, "deleteSession", () => this.#store.deleteSession(sessionId));
  }

  /** `call`, rejected with a `StoreError` `timeout` when it outlives the deadline. */
  #within<T>(sessionId: string, what: string, call: () => Promise<T>): Promise<T> {
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(call());
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<T>((resolve, reject) => {
      let timedOut = false;
      const timer = this.#timers.setTimeout(() => {
        timedOut = true;
        this.#stalled += 1;
        reject(
          new StoreError(
            "timeout",
            sessionId,
            `${what} did not answer within ${this.#milliseconds} ms (storeTimeoutMs)`,
          ),
        );
      }, this.#milliseconds);
      const settle = () => {
        this.#timers.clearTimeout(timer);
        if (timedOut) this.#stalled -= 1;
      };
      pending.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }
}
