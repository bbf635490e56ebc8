import type { TurnId } from "./message.js";
import { turnIdOf } from "./message-shapes.js";
import { isSummaryTurn, SUMMARY_TURN_ID } from "./turn.js";

/**
 * Assigns turns as the session does, one message at a time, for the provider converters: a user
 * request opens a turn, replies and tool results continue it, a summary has its own.
 */
export class TurnTracker {
  #number: number;
  #current: TurnId | undefined;
  #opened: boolean;
  constructor(firstTurnNumber: number, after: TurnId | undefined) {
    this.#number =
      after === undefined ? firstTurnNumber - 1 : Math.max(after.number, firstTurnNumber - 1);
    // A known history that ends in the summary's turn: what comes next opens a turn.
    this.#current = after === undefined || isSummaryTurn(after) ? undefined : after;
    this.#opened = this.#current !== undefined;
  }

  /**
   * Whether a turn was opened: the library writes its summaries and notices only before the
   * first, so a user message led by their prefix after it is the user's words, read as they are.
   */
  get opened(): boolean {
    return this.#opened;
  }
  open(): TurnId {
    this.#opened = true;
    this.#number += 1;
    this.#current = turnIdOf("u", this.#number);
    return this.#current;
  }
  /** The turn in flight; the first message of a run opens one. */
  current(): TurnId {
    return this.#current ?? this.open();
  }
  /** Where a system message goes: the turn it follows, or the one the next message opens. */
  pending(): TurnId {
    return this.#current ?? turnIdOf("u", this.#number + 1);
  }
  /** The summary's turn, which holds the summary alone: the message after it opens a turn. */
  summary(): TurnId {
    this.#current = undefined;
    return { ...SUMMARY_TURN_ID };
  }
}
