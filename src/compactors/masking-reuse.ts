import type { Message } from "../core/message.js";
import { leavePastPass, type PastPass, pastPassOf } from "../core/message-memo.js";

/**
 * What a masking pass made of the messages of one block it masked, by their index: the message
 * made, the text that replaced the block's content, the tokens that saved. A conversation masked
 * again (a loop that keeps its history and compacts it before each request) reuses them: no new
 * copy, and neither the old result nor the copy made of it is read again (on a long conversation
 * the pass waits on memory more than it computes). Kept from a conversation's second pass on
 * ({@link maskedEarlier}).
 */
export class MaskingRecord {
  readonly made: (Message | undefined)[];
  readonly replacements: (string | undefined)[];
  readonly saved: number[];

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

/** What a pass that kept no record leaves: the next pass on the conversation keeps one. */
const FIRST_PASS: PastPass = { sources: [], record: {} };

/**
 * Whether a masking pass ran before on the conversation starting as `input`, whether it kept a
 * record or not: a pass keeps one only then. A conversation masked once, as a stateless server
 * sees each request, never pays for a record no pass would read.
 */
export function maskedEarlier(input: readonly Message[]): boolean {
  const first = input[0];
  return first !== undefined && pastPassOf(first) !== undefined;
}

/** Notes that a pass keeping no record ran on the conversation starting as `input`. */
export function rememberFirstPass(input: readonly Message[]): void {
  const first = input[0];
  if (first !== undefined && pastPassOf(first) === undefined) leavePastPass(first, FIRST_PASS);
}

/**
 * Remembers what a masking pass made of the caller's array `input` (copied here: the caller may
 * change it), and its record. Kept while the conversation's first message lives: one past pass
 * per conversation.
 */
export function rememberMasking(input: readonly Message[], record: MaskingRecord): void {
  const first = input[0];
  if (first === undefined) return;
  leavePastPass(first, { sources: input.slice(), record });
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
