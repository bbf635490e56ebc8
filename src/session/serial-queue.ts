import { linkAbort } from "../core/abort.js";

/**
 * Runs a session's compactions one at a time, in the order they were queued: each task starts
 * once every task queued before it has settled, whether it resolved or rejected.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #running = 0;

  /** Whether a task has started and not yet settled. */
  get running(): boolean {
    return this.#running > 0;
  }

  /**
   * Runs `task` after every task queued before it; settles as it does. When `signal` fires
   * before it starts, it rejects at once (`aborted`) and the task never runs; once started, the
   * task answers the signal itself.
   */
  enqueue<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.#tail;
    const link = linkAbort(signal);
    const run = Promise.race([link.aborted, previous]).then(async () => {
      link.release();
      this.#running += 1;
      try {
        return await task();
      } finally {
        this.#running -= 1;
      }
    });
    // The next task waits for the one before this, whether or not this one ran.
    this.#tail = previous.then(() => run).catch(() => undefined);
    return run;
  }
}
