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
