import { abortedError } from "../core/abort.js";
import { sameValue } from "./same-value.js";

/** How many conversations a stateless path remembers by default (the latest ones). */
export const REMEMBERED_CONVERSATIONS = 16;

/** A history remembered by the messages it stands for. */
export interface Remembered {
  /** The caller's messages it stands for (a copy of their array: the caller may append to its own). */
  readonly input: readonly unknown[];
}

/**
 * The latest histories a stateless path compacted for, newest first, at most `size`: a call
 * whose messages continue one of them (they start with the messages it stands for, the same
 * data) goes on from it. Messages are compared by value ({@link sameValue}), so a request body
 * parsed anew each time still finds its conversation; one that cannot be read (a getter that
 * throws) continues none.
 */
export class RecentHistories<H extends Remembered> {
  readonly #histories: H[] = [];
  readonly #size: number;
  /** The calls compacting right now, each with the messages it was given. */
  readonly #running: { readonly input: readonly unknown[]; readonly done: Promise<unknown> }[] = [];

  constructor(size: number) {
    this.#size = size;
  }

  /** The longest remembered history `messages` continue, if any. */
  find(messages: readonly unknown[]): H | undefined {
    let found: H | undefined;
    for (const history of this.#histories) {
      const { input } = history;
      if (
        input.length > messages.length ||
        (found !== undefined && input.length <= found.input.length)
      )
        continue;
      if (continues(messages, input)) found = history;
    }
    return found;
  }

  /**
   * Runs `compact` on `messages` once no call compacting the same messages runs (a client's
   * retry while its first request still runs waits for it, then goes on from what that one
   * sent, so both send the same, whichever reply the client keeps: a summarizer asked twice
   * writes two summaries, and thinking signed over one is refused over the other). Marked
   * running before anything else runs, so a retry arriving meanwhile waits for this one.
   * Rejects with an `aborted` `CompactionError` when `signal` fires while it waits.
   */
  async alone<R>(
    messages: readonly unknown[],
    signal: AbortSignal | undefined,
    compact: () => Promise<R>,
  ): Promise<R> {
    for (let same = this.#runningOn(messages); same !== undefined; same = this.#runningOn(messages))
      await untilSettled(same, signal);
    const done = compact();
    const call = { input: messages, done };
    this.#running.push(call);
    const end = () => {
      this.#running.splice(this.#running.indexOf(call), 1);
    };
    done.then(end, end);
    return done;
  }

  /** The call compacting the same messages right now, settling when it does, if any. */
  #runningOn(messages: readonly unknown[]): Promise<unknown> | undefined {
    return this.#running.find(
      ({ input }) => input.length === messages.length && continues(messages, input),
    )?.done;
  }

  /** Remembers `next` in place of `previous` (the one it continued), newest first. */
  remember(previous: H | undefined, next: H): void {
    const at = previous === undefined ? -1 : this.#histories.indexOf(previous);
    if (at !== -1) this.#histories.splice(at, 1);
    this.#histories.unshift(next);
    this.#histories.length = Math.min(this.#histories.length, this.#size);
  }
}

/** Whether `messages` start with `input`'s messages, by value; false when one cannot be read. */
function continues(messages: readonly unknown[], input: readonly unknown[]): boolean {
  try {
    for (let index = 0; index < input.length; index += 1)
      if (!sameValue(input[index], messages[index])) return false;
    return true;
  } catch {
    return false;
  }
}

/** Settles when `done` does, whatever its outcome; rejects when `signal` fires first. */
function untilSettled(done: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => {
    const abort = () => reject(abortedError(signal));
    signal?.addEventListener("abort", abort, { once: true });
    const end = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    done.then(end, end);
  });
}
