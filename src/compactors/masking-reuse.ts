import type { Message, TurnId } from "../core/message.js";
import { leavePastPass, pastPassOf } from "../core/message-memo.js";
import { sameTurn } from "../core/turn.js";

/** What {@link MaskingRecord} notes of a message with no tool result: never masked. */
export const NO_RESULTS: unique symbol = Symbol("no tool results");

/**
 * What masking passes on one conversation found of its messages, by index: the message read
 * there, and either that it holds no tool result (never masked), or, for a message of one
 * result, the text that replaced it, the message made and the tokens that saved. Each entry is
 * a fact that stays true (messages are immutable: the same message masked by the same text
 * gives the same message, saving as many tokens), so every pass on the conversation adds to the
 * one record and reuses what an earlier pass noted of a message still at its index: no new
 * copy, and the message, its blocks and the copy are not read again (on a long conversation
 * the pass waits on memory more than it computes). Kept from a conversation's second pass on
 * (see {@link pastMasking}).
 */
export class MaskingRecord {
  // Declared only: the constructor sets each (a field emitted as well would be defined twice).
  declare readonly sources: (Message | undefined)[];
  declare readonly replacements: (string | typeof NO_RESULTS | undefined)[];
  declare readonly made: (Message | undefined)[];
  declare readonly saved: number[];
  /** The turn number of each masked source: a recent turn's is told apart without reading it. */
  declare readonly turnNumbers: number[];

  constructor(length: number) {
    this.sources = new Array(length);
    this.replacements = new Array(length);
    this.made = new Array(length);
    this.saved = new Array(length);
    this.turnNumbers = new Array(length);
  }

  /**
   * Notes that `source`, at `index`, was masked to `message` by `replacement`, saving `saved`; or
   * that it holds no tool result (`replacement` {@link NO_RESULTS}).
   */
  note(index: number, source: Message, replacement: typeof NO_RESULTS): void;
  note(index: number, source: Message, replacement: string, message: Message, saved: number): void;
  note(
    index: number,
    source: Message,
    replacement: string | typeof NO_RESULTS,
    message?: Message,
    saved?: number,
  ): void {
    this.sources[index] = source;
    this.replacements[index] = replacement;
    if (message === undefined) return;
    this.made[index] = message;
    this.saved[index] = saved!;
    this.turnNumbers[index] = source.turnId.number;
  }

  /**
   * Whether a pass masked `message`, at `index` then too, by `replacement` (see {@link made}), or
   * found it holds no tool result ({@link NO_RESULTS}).
   */
  holds(index: number, message: Message, replacement: string | typeof NO_RESULTS): boolean {
    return this.sources[index] === message && this.replacements[index] === replacement;
  }

  /** Lets go of what was noted at `index` unless it was noted of `message`. */
  forgetOther(index: number, message: Message): void {
    const source = this.sources[index];
    if (source === undefined || source === message) return;
    this.sources[index] = undefined;
    this.replacements[index] = undefined;
    this.made[index] = undefined;
  }

  /**
   * Lets go of what was noted of messages `conversation` no longer holds, from `from` on (a pass
   * let go of those before, as it read them): a conversation cut back keeps no message alive.
   */
  keepOnly(conversation: readonly Message[], from: number): void {
    const end = Math.min(this.sources.length, conversation.length);
    for (let index = from; index < end; index += 1) this.forgetOther(index, conversation[index]!);
    if (this.sources.length <= conversation.length) return;
    for (const values of [this.sources, this.replacements, this.made, this.saved, this.turnNumbers])
      values.length = conversation.length;
  }

  /**
   * Whether the masked message at `index` (which {@link holds} it) is in one of `turns`: its
   * turn number compared first, the turn itself read only when one of them has that number.
   */
  inTurns(index: number, message: Message, turns: readonly TurnId[]): boolean {
    const number = this.turnNumbers[index];
    for (let at = 0; at < turns.length; at += 1)
      if (turns[at]!.number === number && sameTurn(turns[at]!, message.turnId)) return true;
    return false;
  }
}

/** A conversation's first pass: it keeps no record, but the next pass on it makes one. */
const FIRST_PASS_ONLY = {};

/**
 * The record of masking passes on a conversation starting as `input`, which a pass adds to;
 * `undefined` on the conversation's first pass (one masked once, as a stateless server sees
 * each request, never pays for a record no pass would read), which leaves a note that it ran.
 * Kept by the conversation's first message, while it lives: a loop that keeps its conversation
 * and compacts it again, grown or not, in the same array or a new one, finds it.
 */
export function pastMasking(input: readonly Message[]): MaskingRecord | undefined {
  const first = input[0];
  const past = recordedMasking(input);
  if (past !== undefined || first === undefined) return past;
  const record =
    pastPassOf(first) === FIRST_PASS_ONLY ? new MaskingRecord(input.length) : undefined;
  leavePastPass(first, record ?? FIRST_PASS_ONLY);
  return record;
}

/** The record masking passes on a conversation starting as `input` keep, if any (it changes nothing). */
export function recordedMasking(input: readonly Message[]): MaskingRecord | undefined {
  const first = input[0];
  const past = first === undefined ? undefined : pastPassOf(first);
  return past instanceof MaskingRecord ? past : undefined;
}
