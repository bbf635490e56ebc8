import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { CompactionCommit } from "../session/compaction-commit.js";
import { Lease, type LeaseStore } from "./lease.js";

/** What the commit step needs of its stored session. */
export interface StoreCommitHost {
  /** The worker's store, its calls bounded in time. */
  readonly store: LeaseStore;
  readonly sessionId: string;
  readonly workerId: string;
  readonly leaseMs: number;
  /** Runs `task` after every other read or write of the session object. */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /**
   * Swaps the head for the session as it would be with `conversation`, by compare-and-swap
   * on the version this worker read; applies it on success, reads what changed on failure.
   */
  swap(conversation: Message[], apply: (conversation: Message[]) => void): Promise<boolean>;
}

/**
 * A stored session's commit step: the session's lease is taken before a compactor runs (so
 * one worker pays for a summary at a time; a manual run waits for it at most `leaseMs`), and a
 * replacement lands by the head's compare-and-swap, inside the session's exclusive section so
 * no write of this worker slips between building the head and swapping it. The lease saves
 * duplicate work; what keeps the history right is the compare-and-swap.
 */
export class StoreCommit implements CompactionCommit {
  readonly #host: StoreCommitHost;
  #lease: Lease | undefined;

  constructor(host: StoreCommitHost) {
    this.#host = host;
  }

  async begin(wait: boolean, signal: AbortSignal | undefined): Promise<boolean> {
    const { store, sessionId, workerId, leaseMs } = this.#host;
    const lease = new Lease(store, sessionId, workerId, leaseMs);
    this.#lease = lease;
    if (!wait) return lease.acquire();
    if (await lease.acquireWithin(leaseMs, signal)) return true;
    throw new CompactionError(
      "busy",
      `another worker held the compaction lease of session ${JSON.stringify(sessionId)} for ${leaseMs} ms`,
    );
  }

  commit(build: () => Message[], apply: (conversation: Message[]) => void): Promise<boolean> {
    return this.#host.exclusive(() => this.#host.swap(build(), apply));
  }

  async end(): Promise<void> {
    const lease = this.#lease;
    this.#lease = undefined;
    await lease?.release();
  }
}
