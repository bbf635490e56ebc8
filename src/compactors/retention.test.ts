import { describe, expect, it } from "vitest";
import { estimateMessageTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/index.js";
import { keptPartStart, keptStart, keptToolUses } from "./retention.js";

/** One request, then `count` reads whose results are `size` characters each. */
function reads(count: number, size: number) {
  const builder = new ConversationBuilder().user("Fix the build.");
  for (let call = 1; call <= count; call += 1)
    builder.toolCall({
      name: "read_file",
      input: { path: `src/f${call}.ts` },
      result: "x".repeat(size),
    });
  return builder.build();
}

const tokensFrom = (messages: ReturnType<typeof reads>, start: number) =>
  messages.slice(start).reduce((sum, message) => sum + estimateMessageTokens(message), 0);

describe("the kept part", () => {
  it("keeps the newest tool uses whole when they fit under the cap", () => {
    const conversation = reads(12, 400);
    const start = keptStart(conversation, { toolUses: 8, toolUsesUpTo: 1_000_000 });
    expect(start).toBe(conversation.length - 16);
  });

  it("keeps fewer tool uses than asked when they would take more than the cap", () => {
    const conversation = reads(12, 4000);
    const upTo = 3000;
    const start = keptStart(conversation, { toolUses: 8, toolUsesUpTo: upTo });
    expect(tokensFrom(conversation, start)).toBeLessThanOrEqual(upTo);
    // The next older message would have taken it past the cap.
    expect(tokensFrom(conversation, start - 1)).toBeGreaterThan(upTo);
  });

  it("keeps the newest message whatever its size, and the newest share above the cap", () => {
    const conversation = reads(3, 40_000);
    expect(keptStart(conversation, { toolUses: 8, toolUsesUpTo: 10 })).toBe(
      conversation.length - 1,
    );
    const share = 25_000;
    const start = keptStart(conversation, { toolUses: 8, tokens: share, toolUsesUpTo: 10 });
    expect(tokensFrom(conversation, start)).toBeGreaterThanOrEqual(share);
    expect(tokensFrom(conversation, start + 1)).toBeLessThan(share);
  });

  it("caps the tool uses halfway from the target to the threshold, with a known window", () => {
    // Twelve results of ~10% of a 200k window: 8 would keep ~80% whole, over the threshold.
    const conversation = reads(12, 80_000);
    const settings = { keepRecentToolUses: 8, threshold: 0.72, targetUtilization: 0.2 };
    const kept = keptToolUses(conversation, settings, 200_000);
    expect(kept).toBe(4);
    const start = keptPartStart(conversation, settings, 200_000)!;
    expect(tokensFrom(conversation, start)).toBeLessThanOrEqual(0.46 * 200_000);
    // Without a target, a threshold or a window, all 8 stay.
    expect(keptToolUses(conversation, { keepRecentToolUses: 8, threshold: 0.72 }, 200_000)).toBe(8);
    expect(keptToolUses(conversation, settings, undefined)).toBe(8);
    // Small results: the cap does not bind.
    expect(keptToolUses(reads(12, 4000), settings, 200_000)).toBe(8);
  });
});
