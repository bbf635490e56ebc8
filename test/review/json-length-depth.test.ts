import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/message.js";
import { fastMessageTokens } from "../../src/core/message-fast-check.js";
import { estimateTokens } from "../../src/core/message-memo.js";
import { checkedJsonObjectLength, jsonLength } from "../../src/internal/json-length.js";

/** A tool input `levels` objects deep whose innermost string JSON escapes (quotes, newlines). */
function deepInput(levels: number): Record<string, unknown> {
  let input: Record<string, unknown> = { text: 'say "hi"\n'.repeat(50) };
  for (let level = 1; level < levels; level += 1) input = { a: input };
  return input;
}

// jsonLength counts strings without their escapes, but let JSON.stringify (which counts them)
// measure what lay past its own depth cap (64), while the checked walk of the quick readers and
// of handed-over messages goes as deep as a valid value (256): the two estimates of one message
// differed, and a message's remembered estimate was not the sum of its blocks' any more.
describe("jsonLength of deep valid values", () => {
  for (const levels of [63, 64, 65, 70, 200, 255]) {
    it(`equals the checked walk's length at ${levels} levels`, () => {
      const input = deepInput(levels);
      const checked = checkedJsonObjectLength(input);
      expect(checked).toBeGreaterThan(0);
      expect(jsonLength(input)).toBe(checked);
    });
  }

  it("gives a handed-over message the estimate the session's estimate gives it", () => {
    const message: Message = {
      role: "assistant",
      id: "m1",
      sessionId: "s1",
      turnId: { owner: "u", number: 1 },
      createdAt: new Date(0),
      content: [{ type: "tool_use", id: "call_1", name: "lookup", input: deepInput(70) as never }],
    };
    expect(fastMessageTokens(message)).toBe(estimateTokens([message]));
  });
});
