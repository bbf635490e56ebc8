import type { Message } from "../../src/core/message.js";

/**
 * The same messages as new objects all the way down (turn ids, dates, content, blocks), the
 * strings shared: what no compaction has seen, so nothing it remembers applies.
 */
export function unseenCopy(messages: readonly Message[]): Message[] {
  return messages.map((message) => ({
    ...message,
    turnId: { ...message.turnId },
    createdAt: new Date(message.createdAt.getTime()),
    content: message.content.map((block) => ({ ...block })),
  })) as Message[];
}
