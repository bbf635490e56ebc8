/**
 * The automatic compaction a session runs at a time: a call while one is queued or running
 * joins it (gets the same promise). Joining ends once the run has settled, before what follows
 * it (the `afterCompact` hooks), so a hook may start the next one.
 */
export class JoinedRun<T> {
  #pending: Promise<T> | undefined;

  /** The run a call would join, if any. */
  get pending(): Promise<T> | undefined {
    return this.#pending;
  }

  /** Starts a run: `queued`, then `finish` with its outcome; `onEnd` when joining ends. */
  start<R>(queued: Promise<R>, finish: (outcome: R) => Promise<T>, onEnd?: () => void): Promise<T> {
    const end = () => {
      if (this.#pending !== run) return;
      this.#pending = undefined;
      onEnd?.();
    };
    const run = queued.then(
      async (outcome) => {
        end();
        return finish(outcome);
      },
      (error: unknown) => {
        end();
        throw error;
      },
    );
    this.#pending = run;
    return run;
  }
}
