import type { ContentBlock, Message, TurnId } from "../core/message.js";
import { messageOf } from "../core/message-shapes.js";
import { splitSummary } from "../core/summary-format.js";
import { estimateContentTokens } from "../core/tokens.js";
import type { TurnTracker } from "../core/turn-tracker.js";

/** The request of a message read apart, to go right after the library's part (at `after`). */
export interface ApartRequest {
  after: number;
  message: Message;
}

/** What {@link readApart} reads and writes of a conversion's state. */
export interface ApartConversion {
  /** The conversion's messages, by the index of the message each was read from. */
  out: Message[];
  /** The requests of messages read apart, in order. */
  apart: ApartRequest[];
  generateId: (() => string) | undefined;
  turns: TurnTracker;
  sessionId: string;
  createdAt: Date;
}

/**
 * Reads a user message the summary's turn took (a summary or a notice leads it) apart, as
 * `joinedUserMessages` wrote it: the library's blocks in the summary's turn (at `index` in
 * `out`), the request joined after them opening a turn of its own (in `apart`), so the next
 * compaction replaces the summary and keeps the request. Their estimate; `undefined` when the
 * message holds the library's blocks alone (in `out` whole).
 */
export function readApart(
  conversion: ApartConversion,
  index: number,
  id: string,
  turnId: TurnId,
  content: ContentBlock[],
): number | undefined {
  const { out, turns, sessionId, createdAt } = conversion;
  const { library, rest } = splitSummary(content);
  const blocks = rest.length === 0 ? content : library.flat();
  out[index] = messageOf("user", id, sessionId, turnId, createdAt, blocks);
  if (rest.length === 0) return undefined;
  // Its id: the conversion's next, or the library part's and a suffix no position has.
  const requestId = conversion.generateId?.() ?? `${id}.1`;
  const request = messageOf("user", requestId, sessionId, turns.open(), createdAt, rest);
  conversion.apart.push({ after: index, message: request });
  return estimateContentTokens(blocks) + estimateContentTokens(rest);
}

/**
 * `out` with each request read apart right after the library's part it was read with, and the
 * indices of those parts in the result.
 */
export function withApart(
  out: readonly Message[],
  apart: readonly ApartRequest[],
): { messages: Message[]; readApart: number[] } {
  const messages: Message[] = [];
  const readApart: number[] = [];
  let next = 0;
  for (let index = 0; index < out.length; index += 1) {
    messages.push(out[index]!);
    const request = apart[next];
    if (request?.after !== index) continue;
    readApart.push(messages.length - 1);
    messages.push(request.message);
    next += 1;
  }
  return { messages, readApart };
}
