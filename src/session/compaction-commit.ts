import type { CompactionRunOutcome } from "./compaction-report.js";
import type { History, Replacement } from "./history.js";
import type { RunKind } from "./run-policy.js";

/**
 * The step that makes a compaction real, the one place the two faces of a session differ:
 * in memory a replacement lands at once; a stored session reads what other workers wrote before
 * each attempt, takes the session's lease before it pays for a summary, swaps the head by
 * compare-and-swap, and tries again after a lost race.
 */
export interface CompactionCommit {
  /** Before each attempt of a run: brings the history up to what other workers wrote. @default nothing to read */
  refresh?(): Promise<void>;
  /**
   * Whether this worker may compact now (`false`: another holds the lease), asked once per
   * attempt, before its first compactor runs (or its last resort trims). With `wait` (a manual
   * run) it may wait, or reject with `busy`; `store_error` when the store failed the read
   * before it or the lease (the run reports it, and its last resort still trims).
   */
  begin(wait: boolean, signal: AbortSignal | undefined): Promise<boolean>;
  /**
   * Lands `replacement` in `history`, as {@link History.landed} has it at that moment (messages
   * appended meanwhile included). Resolves to `false`, nothing applied, when another worker
   * changed the history first.
   */
  land(history: History, replacement: Replacement): boolean | Promise<boolean>;
  /**
   * Lands the last resort's trim in this worker's copy alone, once `land` failed for the store
   * (`store_error`): the request that follows fits; the next call undoes it. @default none
   */
  landLocally?(history: History, replacement: Replacement): Promise<boolean>;
  /** Once an attempt is over, whether it began or not. */
  end(): Promise<void>;
  /**
   * After each attempt: whether to try again (another worker's change won). A manual run out of
   * attempts rejects with `aborted`. @default never again
   */
  retry?(outcome: CompactionRunOutcome, kind: RunKind, attempt: number): Promise<boolean>;
}

/** The commit of a session held in memory: nothing to read, wait for or persist. */
export const IN_MEMORY_COMMIT: CompactionCommit = Object.freeze({
  begin: () => Promise.resolve(true),
  land(history: History, replacement: Replacement): boolean {
    history.replace(history.landed(replacement));
    return true;
  },
  end: () => Promise.resolve(),
});
