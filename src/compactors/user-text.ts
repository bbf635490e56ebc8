import type { Message, UserMessage } from "../core/message.js";
import { isSummaryTurn } from "../core/turn.js";

/** One text block of a user message: the user's own, or one of a notice's or summary's. */
export interface UserTextBlock {
  text: string;
  /** Whether it is a block of a notice or summary (turn `u0`): the library's, not the user's. */
  library: boolean;
  message: UserMessage;
}

/**
 * The text blocks of the user's messages and of the notices and summaries among `messages`, in
 * order; what the library wrote in the user's place (a continuation) is left out.
 */
export function userTextBlocks(messages: readonly Message[]): UserTextBlock[] {
  const blocks: UserTextBlock[] = [];
  for (const message of messages) {
    if (message.role !== "user") continue;
    const library = isSummaryTurn(message.turnId);
    if (!library && message.generated !== undefined) continue;
    for (const block of message.content)
      if (block.type === "text") blocks.push({ text: block.text, library, message });
  }
  return blocks;
}

/** `items` with each key once, where it came last, in their order. */
export function keptWhereSaidLast<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  const newestFirst: T[] = [];
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index]!;
    if (seen.has(key(item))) continue;
    seen.add(key(item));
    newestFirst.push(item);
  }
  return newestFirst.reverse();
}
