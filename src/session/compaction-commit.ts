import type { Message } from "../core/message.js";

/**
 * The step that makes a compaction real, the one place the two faces of a session differ:
 * in memory a replacement applies at once; a stored session takes the session's lease before
 * it pays for a summary and swaps the head by compare-and-swap.
 */
export interface CompactionCommit {
  /**
   * Called once per run, before its first compactor runs: whether this worker may compact now
   * (`false`: another holds the lease). With `wait` (a manual run) it may wait, or reject
   * with `busy`.
   */
  begin(wait: boolean, signal: AbortSignal | undefined): Promise<boolean>;
  /**
   * Persists and applies a replacement of the conversation: `build` gives it as of the moment
   * it lands (messages appended meanwhile included), `apply` puts it in the history. Resolves to
   * `false`, nothing applied, when another worker changed the history first.
   */
  commit(
    build: () => Message[],
    apply: (conversation: Message[]) => void,
  ): boolean | Promise<boolean>;
  /** Called once the run is over, whether it began or not. */
  end(): Promise<void>;
}

/** The commit of a session held in memory: nothing to wait for, nothing to persist. */
export const IN_MEMORY_COMMIT: CompactionCommit = Object.freeze({
  begin: () => Promise.resolve(true),
  commit(build: () => Message[], apply: (conversation: Message[]) => void): boolean {
    apply(build());
    return true;
  },
  end: () => Promise.resolve(),
});
