import { abortedError } from "../core/abort.js";
import { sameValue, type snapshotOf } from "./same-value.js";

/** How many conversations a stateless path remembers by default (the latest ones). */
export const REMEMBERED_CONVERSATIONS = 16;

/** A history remembered by the messages it stands for. */
export interface Remembered {
  /** The caller's messages it stands for (a copy of their array: the caller may append to its own). */
  readonly input: readonly unknown[];
  /**
   * How many of those, the last ones, went as they came at the end of what was sent: a call that
   * keeps the messages before them and changes or drops some of these (a client's "edit and
   * resend" of its latest request) goes on from the rest of what was sent. @default 0
   */
  readonly verbatim?: number;
}

/** A remembered history a call goes on from, and how many of its messages the call still has. */
export interface Continued<H> {
  readonly history: H;
  /** The messages the call starts with that are the history's, by value (at least those before its verbatim ones). */
  readonly matched: number;
}

/**
 * The latest histories a stateless path compacted for, newest first, at most `size`: a call
 * whose messages continue one of them (they start with the messages it stands for, the same
 * data) goes on from it. Messages are compared by value ({@link sameValue}), so a request body
 * parsed anew each time still finds its conversation; one that cannot be read (a getter that
 * throws) is not the same. A history's messages kept as copies ({@link snapshotOf}) tell a
 * message the caller changed in place since.
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
    const found = this.match(messages);
    return found?.matched === found?.history.input.length ? found?.history : undefined;
  }

  /**
   * The remembered history `messages` go on from furthest: one they continue, or one whose
   * messages they keep up to one of its verbatim ones (then changed or dropped), if any.
   */
  match(messages: readonly unknown[]): Continued<H> | undefined {
    let found: Continued<H> | undefined;
    for (const history of this.#histories) {
      const { input } = history;
      const least = input.length - (history.verbatim ?? 0);
      const most = Math.min(input.length, messages.length);
      if (most < least || (found !== undefined && most <= found.matched)) continue;
      const matched = matching(messages, input, least, most);
      // Continued from none of its messages, it gives the call nothing.
      if (matched >= least && matched > 0 && (found === undefined || matched > found.matched))
        found = { history, matched };
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
  return matching(messages, input, input.length, input.length) === input.length;
}

/**
 * How many of `messages`, from the first, are `input`'s by value (at most `most`); less than
 * `least` when not that many are (the message before it checked first, a quick refusal). One
 * that cannot be read (a getter that throws) is not the same.
 */
function matching(
  messages: readonly unknown[],
  input: readonly unknown[],
  least: number,
  most: number,
): number {
  let index = 0;
  try {
    if (least > 0 && !sameValue(input[least - 1], messages[least - 1])) return -1;
    while (index < most && sameValue(input[index], messages[index])) index += 1;
  } catch {
    // The message at `index` could not be read: not the same.
  }
  return index;
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
