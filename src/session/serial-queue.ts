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

  /** Runs `task` after every task queued before it; settles as it does. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(async () => {
      this.#running += 1;
      try {
        return await task();
      } finally {
        this.#running -= 1;
      }
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
