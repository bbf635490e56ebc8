import { abortedError, type Timers } from "../core/abort.js";
import type { SessionStore } from "./session-store.js";

/** Resolves after `ms`, or rejects with an `aborted` CompactionError when `signal` fires. */
function pause(ms: number, timers: Timers, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = () => {
      timers.clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = timers.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What a lease needs of its worker's store: the calls, their timers, and whether one hangs. */
export interface LeaseStore extends SessionStore {
  readonly timers: Timers;
  /** Whether a call of this worker timed out and still hangs: the worker is stuck. */
  readonly stalled: boolean;
}

/**
 * One worker's hold on a session's compaction lease: taken before a summary is paid for,
 * renewed while it runs (every third of its time to live), given up afterwards. A worker that
 * dies stops renewing, and so does one that is stuck (a store call of its own timed out and
 * still hangs): its lease expires after `ttlMs`. The lease saves duplicate work; what keeps the
 * history right is the head's compare-and-swap, lease or not.
 */
export class Lease {
  readonly #store: LeaseStore;
  readonly #sessionId: string;
  readonly #owner: string;
  readonly #ttlMs: number;
  #held = false;
  #renewal: ReturnType<Timers["setTimeout"]> | undefined;

  constructor(store: LeaseStore, sessionId: string, owner: string, ttlMs: number) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#owner = owner;
    this.#ttlMs = ttlMs;
  }

  /** Takes the lease unless another live worker holds it; `true` when held. */
  async acquire(): Promise<boolean> {
    if (this.#held) return true;
    this.#held = await this.#store.acquireLease(this.#sessionId, this.#owner, this.#ttlMs);
    if (this.#held) this.#renewLater();
    return this.#held;
  }

  /** Renews the lease a third of its time to live from now, unless given up or stuck by then. */
  #renewLater(): void {
    const { timers } = this.#store;
    this.#renewal = timers.setTimeout(
      () => {
        this.#renewal = undefined;
        if (!this.#held || this.#store.stalled) return;
        this.#store.acquireLease(this.#sessionId, this.#owner, this.#ttlMs).then(
          (held) => {
            if (held && this.#held) this.#renewLater();
          },
          () => {
            // A failed renewal lets the lease expire: the head's CAS still decides what applies.
          },
        );
      },
      Math.max(1, Math.floor(this.#ttlMs / 3)),
    );
    (this.#renewal as { unref?: () => void }).unref?.();
  }

  /**
   * Takes the lease, waiting while another worker holds it, at most `waitMs`; `false` when
   * it is still held by then. Rejects with an `aborted` CompactionError when `signal` fires.
   */
  async acquireWithin(waitMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    let delay = 10;
    for (;;) {
      if (await this.acquire()) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await pause(Math.min(delay, left), this.#store.timers, signal);
      delay = Math.min(delay * 2, 500);
    }
  }

  /** Gives the lease up; a failure to say so lets it expire instead. */
  async release(): Promise<void> {
    if (this.#renewal !== undefined) this.#store.timers.clearTimeout(this.#renewal);
    this.#renewal = undefined;
    if (!this.#held) return;
    this.#held = false;
    await this.#store.releaseLease(this.#sessionId, this.#owner).catch(() => {
      // Unreachable store: the lease expires on its own.
    });
  }
}
