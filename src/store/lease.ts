import { abortedError } from "../core/abort.js";
import type { SessionStore } from "./session-store.js";

/** Resolves after `ms`, or rejects with an `aborted` CompactionError when `signal` fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One worker's hold on a session's compaction lease: taken before a summary is paid for,
 * renewed while it runs (every third of its time to live), given up afterwards. A worker that
 * dies stops renewing, and its lease expires after `ttlMs`. The lease saves duplicate work;
 * what keeps the history right is the head's compare-and-swap, lease or not.
 */
export class Lease {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #owner: string;
  readonly #ttlMs: number;
  #held = false;
  #renewal: ReturnType<typeof setInterval> | undefined;

  constructor(store: SessionStore, sessionId: string, owner: string, ttlMs: number) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#owner = owner;
    this.#ttlMs = ttlMs;
  }

  /** Takes the lease unless another live worker holds it; `true` when held. */
  async acquire(): Promise<boolean> {
    if (this.#held) return true;
    this.#held = await this.#store.acquireLease(this.#sessionId, this.#owner, this.#ttlMs);
    if (this.#held) {
      this.#renewal = setInterval(
        () => {
          this.#store.acquireLease(this.#sessionId, this.#owner, this.#ttlMs).catch(() => {
            // A failed renewal lets the lease expire: the head's CAS still decides what applies.
          });
        },
        Math.max(1, Math.floor(this.#ttlMs / 3)),
      );
      this.#renewal.unref?.();
    }
    return this.#held;
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
      await pause(Math.min(delay, left), signal);
      delay = Math.min(delay * 2, 500);
    }
  }

  /** Gives the lease up; a failure to say so lets it expire instead. */
  async release(): Promise<void> {
    if (this.#renewal !== undefined) clearInterval(this.#renewal);
    this.#renewal = undefined;
    if (!this.#held) return;
    this.#held = false;
    await this.#store.releaseLease(this.#sessionId, this.#owner).catch(() => {
      // Unreachable store: the lease expires on its own.
    });
  }
}
