import { CompactionError, ValidationError } from "../core/errors.js";
import type { CompactionCommit } from "../session/compaction-commit.js";
import type { CompactionRunOutcome } from "../session/compaction-report.js";
import type { History, Replacement } from "../session/history.js";
import type { RunKind } from "../session/run-policy.js";
import type { SerialQueue } from "../session/serial-queue.js";
import { Lease, type LeaseStore } from "./lease.js";
import type { SharedState } from "./shared-state.js";
import type { StoreReplica } from "./store-replica.js";

/** What the commit step needs of its stored session. */
export interface StoreCommitSettings {
  /** The worker's store, its calls bounded in time. */
  readonly store: LeaseStore;
  readonly sessionId: string;
  readonly workerId: string;
  readonly leaseMs: number;
  /** Attempts of a compaction in all, one after each race lost to another worker's change. */
  readonly maxAttempts: number;
  /** The session object's reads and writes, one at a time. */
  readonly lock: SerialQueue;
}

/**
 * `call`, its failure a `store_error` (a `StoreError`, or any error a store threw): an outage is
 * no rejection of `maybeCompact` but a reported failure. Bad stored data (a `ValidationError`)
 * and the session's own errors (`busy`, `aborted`) stay as they are.
 */
async function storeCall<T>(sessionId: string, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (ValidationError.isInstance(error) || CompactionError.isInstance(error)) throw error;
    throw new CompactionError(
      "store_error",
      `session ${JSON.stringify(sessionId)}: the store failed ${what}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * A stored session's commit step: each attempt reads what other workers wrote first; the
 * session's lease is taken before a compactor runs (so one worker pays for a summary at a time;
 * a manual run waits for it at most `leaseMs`), and a replacement lands by the head's
 * compare-and-swap, inside the session's exclusive section so no write of this worker slips
 * between building the head and swapping it; after a lost race the run is tried again. The
 * lease saves duplicate work; what keeps the history right is the compare-and-swap.
 */
export class StoreCommit implements CompactionCommit {
  readonly #settings: StoreCommitSettings;
  #replica: StoreReplica | undefined;
  #shared: SharedState | undefined;
  #lease: Lease | undefined;
  /** This attempt's read before compacting, when the store failed it, and whether `begin` threw it. */
  #unread: { error: CompactionError; thrown: boolean } | undefined;
  /** This attempt's write of the breaker, once tried: its failure, if it failed. */
  #circuit: Promise<CompactionError | undefined> | undefined;

  constructor(settings: StoreCommitSettings) {
    this.#settings = settings;
  }

  /** Takes the worker's copy of the session and what its workers share (made after the core). */
  attach(replica: StoreReplica, shared: SharedState): void {
    this.#replica = replica;
    this.#shared = shared;
  }

  /** Reads what other workers appended or compacted, and what they share beyond the history. */
  read(): Promise<void> {
    return this.#settings.lock.enqueue(() => this.#read());
  }

  /**
   * Before each attempt of a run: {@link read}. A store that fails it fails the attempt's
   * `begin` (reported; the last resort still trims this worker's copy when it must), or, when
   * nothing began (nothing was due, as last read), the attempt's report.
   */
  async refresh(): Promise<void> {
    this.#unread = undefined;
    this.#circuit = undefined;
    try {
      await storeCall(
        this.#settings.sessionId,
        "the read before compacting (the compactors did not run)",
        () => this.read(),
      );
    } catch (error) {
      if (!CompactionError.isInstance(error) || error.code !== "store_error") throw error;
      this.#unread = { error, thrown: false };
    }
  }

  /** The log and the shared state, read side by side: one round trip. */
  async #read(): Promise<void> {
    const shared = this.#parts().shared.read();
    shared.catch(() => {});
    await this.#parts().replica.sync();
    (await shared)();
  }

  async begin(wait: boolean, signal: AbortSignal | undefined): Promise<boolean> {
    const { store, sessionId, workerId, leaseMs } = this.#settings;
    const unread = this.#unread;
    if (unread !== undefined) {
      unread.thrown = true;
      throw unread.error;
    }
    const lease = new Lease(store, sessionId, workerId, leaseMs);
    this.#lease = lease;
    if (!wait)
      return storeCall(sessionId, "the lease (the compactors did not run)", () => lease.acquire());
    const acquire = () => lease.acquireWithin(leaseMs, signal);
    if (await storeCall(sessionId, "the lease (the compactors did not run)", acquire)) return true;
    throw new CompactionError(
      "busy",
      `another worker held the compaction lease of session ${JSON.stringify(sessionId)} for ${leaseMs} ms`,
    );
  }

  land(history: History, replacement: Replacement): Promise<boolean> {
    const { replica } = this.#parts();
    const swap = () => replica.swap(history.landed(replacement));
    return this.#settings.lock.enqueue(() =>
      storeCall(
        this.#settings.sessionId,
        "the head's swap (nothing of this compaction was stored)",
        swap,
      ),
    );
  }

  /** The last resort's trim, the store out of reach: in this worker's copy alone, until its next call. */
  landLocally(history: History, replacement: Replacement): Promise<boolean> {
    const { replica } = this.#parts();
    return this.#settings.lock.enqueue(async () => {
      replica.landLocally(history.landed(replacement));
      return true;
    });
  }

  async end(): Promise<void> {
    const lease = this.#lease;
    this.#lease = undefined;
    try {
      // Written before the lease goes: no other worker's summary comes between its read and write.
      this.#circuit ??= this.#writeCircuit();
      await this.#circuit;
    } finally {
      await lease?.release();
    }
  }

  /**
   * Stores what this worker's runs did to the breaker (see `SharedState.writeCircuit`); a store
   * that fails it fails no compaction: what landed stays, and the breaker goes on in this worker,
   * what the store did not take kept for the next write. Not tried after the read before failed
   * (the store is out: one wait for it per call is enough). Its failure, a `store_error`.
   */
  async #writeCircuit(): Promise<CompactionError | undefined> {
    if (this.#unread !== undefined) return undefined;
    try {
      await storeCall(
        this.#settings.sessionId,
        "the circuit breaker's write (kept by this worker for the next)",
        () => this.#parts().shared.writeCircuit(),
      );
      return undefined;
    } catch (error) {
      if (!CompactionError.isInstance(error) || error.code !== "store_error") throw error;
      return error;
    }
  }

  /**
   * The breaker is the session's: the next worker finds what this attempt did to it. A store
   * failure no `begin` threw (the read before an attempt where nothing began; the breaker's write
   * when nothing landed) is the report's, unless it has a failure already. Another attempt after
   * a lost race, `maxAttempts` in all; a manual run that lost every one rejects.
   * @throws {CompactionError} `aborted` for a manual run out of attempts.
   */
  async retry(outcome: CompactionRunOutcome, kind: RunKind, attempt: number): Promise<boolean> {
    const unread = this.#unread;
    if (unread !== undefined && !unread.thrown) outcome.error ??= unread.error;
    const unwritten = await (this.#circuit ?? this.#writeCircuit());
    this.#circuit = undefined;
    // What landed stays landed, as after a swap whose read back failed: no failure of the run.
    if (unwritten !== undefined && !outcome.compacted) outcome.error ??= unwritten;
    if (outcome.discarded !== "conflict") return false;
    if (attempt < this.#settings.maxAttempts) return true;
    if (kind === "manual") {
      throw new CompactionError(
        "aborted",
        `session ${JSON.stringify(this.#settings.sessionId)} was compacted by another worker while this one compacted, ${attempt} times: nothing of this compaction was applied`,
      );
    }
    return false;
  }

  #parts(): { replica: StoreReplica; shared: SharedState } {
    const replica = this.#replica;
    const shared = this.#shared;
    if (replica === undefined || shared === undefined)
      throw new Error("StoreCommit used before attach");
    return { replica, shared };
  }
}
