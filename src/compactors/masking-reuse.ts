import type { Message } from "../core/message.js";
import { leavePastPass, pastPassOf } from "../core/message-memo.js";

/**
 * What a masking pass made of the messages of one block it masked, by their index: the message
 * made, the text that replaced the block's content, the tokens that saved. A conversation masked
 * again (a loop that keeps its history and compacts it before each request) reuses them: no new
 * copy, and neither the old result nor the copy made of it is read again (on a long conversation
 * the pass waits on memory more than it computes). Kept from a conversation's second pass on
 * (see {@link rememberMasking}).
 */
export class MaskingRecord {
  // Declared only: the constructor sets each (a field emitted as well would be defined twice).
  declare readonly made: (Message | undefined)[];
  declare readonly replacements: (string | undefined)[];
  declare readonly saved: number[];

  constructor(length: number) {
    this.made = new Array(length);
    this.replacements = new Array(length);
    this.saved = new Array(length);
  }

  /** Notes that the message at `index` was masked to `message` by `replacement`, saving `saved`. */
  note(index: number, message: Message, replacement: string, saved: number): void {
    this.made[index] = message;
    this.replacements[index] = replacement;
    this.saved[index] = saved;
  }
}

/** A pass as the next one finds it: the messages it read, and its record. */
export interface PastMasking {
  sources: readonly Message[];
  record: MaskingRecord;
}

/**
 * What the last masking pass on a conversation starting as `input` does made of it, if any. Kept
 * by the conversation's first message: a loop that keeps its conversation and compacts it again,
 * grown or not, in the same array or a new one, finds it.
 */
export function pastMasking(input: readonly Message[]): PastMasking | undefined {
  const first = input[0];
  const past = first === undefined ? undefined : pastPassOf(first);
  return past?.record instanceof MaskingRecord ? (past as PastMasking) : undefined;
}

/** What a first pass leaves: no record, but the next pass on the conversation keeps one. */
const NO_RECORD = new MaskingRecord(0);

/**
 * Remembers what a masking pass made of the caller's array `input` (copied here: the caller may
 * change it), and its record; a pass that kept none (a conversation's first) leaves a note that
 * it ran. A record is kept from a conversation's second pass on: one masked once, as a
 * stateless server sees each request, never pays for what no pass would read. Kept while the
 * conversation's first message lives: one past pass per conversation.
 */
export function rememberMasking(input: readonly Message[], record = NO_RECORD): void {
  const first = input[0];
  if (first === undefined) return;
  leavePastPass(first, { sources: record === NO_RECORD ? [] : input.slice(), record });
}

/**
 * The record of a past pass that masked `message` (at `index` then too, a message of one block)
 * by `replacement` too: the message it made there is the one this pass would make (messages are
 * immutable), and it saved as many tokens. `undefined` when there is none.
 */
export function maskedBefore(
  past: PastMasking | undefined,
  index: number,
  message: Message,
  replacement: string,
): MaskingRecord | undefined {
  if (past === undefined || past.sources[index] !== message) return undefined;
  const { record } = past;
  return record.replacements[index] === replacement && record.made[index] !== undefined
    ? record
    : undefined;
}
