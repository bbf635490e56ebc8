import { expect } from "vitest";
import type { ContentBlock, Message } from "../../src/core/message.js";
import { ItemOrigins } from "../../src/internal/item-origins.js";

/** A one-call helper's conversion: the caller's items to ours (noting origins), and back. */
export interface Conversion<T> {
  from: (items: readonly T[], origins: ItemOrigins<T>) => Message[];
  to: (messages: readonly Message[], origins?: ItemOrigins<T>) => T[];
}

const maskBlock = (block: ContentBlock): ContentBlock =>
  block.type === "tool_result" ? { ...block, content: "[masked]" } : block;

/**
 * What compactions do to a conversion's messages, each a new conversation: nothing; every tool
 * result masked in place (a new message of the same id); the oldest messages dropped for a
 * summary; one message removed from the middle.
 */
function compactions(messages: readonly Message[]): Message[][] {
  const masked = messages.map((message) =>
    message.content.some((block) => block.type === "tool_result")
      ? { ...message, content: message.content.map(maskBlock) }
      : message,
  );
  const summary: Message = {
    ...messages[0]!,
    id: "summary",
    role: "user",
    turnId: { owner: "u", number: 0 },
    content: [{ type: "text", text: "Summary of the conversation so far." }],
  };
  const half = Math.floor(messages.length / 2);
  return [
    [...messages],
    masked,
    [summary, ...masked.slice(half)],
    [...messages.slice(0, half), ...messages.slice(half + 1)],
  ];
}

/**
 * Checks that writing with origins gives what writing without them gives (the caller's items
 * handed back are those the writing would make), for each of `conversations` and each
 * compaction of it; `expectReused` of the items handed back as the caller's own objects when
 * nothing changed. Returns how many items came back as the caller's.
 */
export function expectOriginsWriteTheSame<T>(
  conversion: Conversion<T>,
  conversations: readonly (readonly T[])[],
): number {
  let reused = 0;
  for (const items of conversations) {
    const origins = new ItemOrigins(items);
    const messages = conversion.from(items, origins);
    origins.made(messages);
    for (const conversation of compactions(messages)) {
      origins.made(messages);
      const written = conversion.to(conversation, origins);
      expect(written).toEqual(conversion.to(conversation));
      reused += written.filter((item) => items.includes(item)).length;
    }
  }
  return reused;
}

/**
 * A tool loop in one format: `first`, then 40 steps (`step(n)`: a call and its 4,000-character
 * result), every fifth followed by `turnEnd(n)` (a reply and the next request).
 */
export function longToolLoop<T>(
  first: T,
  step: (n: number) => T[],
  turnEnd: (n: number) => T[],
): T[] {
  const history = [first];
  for (let n = 1; n <= 40; n += 1) {
    history.push(...step(n));
    if (n % 5 === 0) history.push(...turnEnd(n / 5));
  }
  return history;
}

/**
 * Compacts `history` in a 50,000-token window with `helper` and checks that at least `minimum`
 * of the caller's items came back as they were (the same objects), beside new ones. Returns
 * those handed back.
 */
export async function expectHandedBack<T>(
  history: T[],
  helper: (
    history: T[],
    options: { contextLimit: number; trimOnOverflow: false },
  ) => Promise<{ messages: T[]; compacted: boolean }>,
  minimum: number,
): Promise<T[]> {
  const { messages, compacted } = await helper(history, {
    contextLimit: 50_000,
    trimOnOverflow: false,
  });
  expect(compacted).toBe(true);
  const kept = messages.filter((item) => history.includes(item));
  expect(kept.length).toBeGreaterThan(minimum);
  expect(messages.length - kept.length).toBeGreaterThan(0);
  return kept;
}
