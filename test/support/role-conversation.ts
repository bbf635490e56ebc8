import type { ContentBlock, Message } from "../../src/core/message.js";

/** A message of `role` holding `content`, named `m<index>`, in one turn of session `s`. */
export function roleMessage(
  role: Message["role"],
  content: ContentBlock[],
  index: number,
): Message {
  return {
    role,
    id: `m${index}`,
    sessionId: "s",
    turnId: { owner: "u", number: 1 },
    createdAt: new Date(0),
    content,
  } as Message;
}

/** Messages from `[role, content]` pairs, in order ({@link roleMessage}). */
export function conversation(...specs: [Message["role"], ContentBlock[]][]): Message[] {
  return specs.map(([role, content], index) => roleMessage(role, content, index));
}
