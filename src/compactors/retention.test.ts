import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/index.js";
import { keptPart, keptPartStart, keptToolUses } from "./retention.js";

/** One request, then `count` reads whose results are `size` characters each. */
function reads(count: number, size: number, builder = new ConversationBuilder()) {
  builder.user("Fix the build.");
  for (let call = 1; call <= count; call += 1)
    builder.toolCall({
      name: "read_file",
      input: { path: `src/f${call}.ts` },
      result: "x".repeat(size),
    });
  return builder;
}

const tokensFrom = (messages: readonly Message[], start: number) =>
  messages.slice(start).reduce((sum, message) => sum + estimateMessageTokens(message), 0);

const usesFrom = (messages: readonly Message[], start: number) =>
  messages.slice(start).flatMap((message) => message.content.filter((b) => b.type === "tool_use"))
    .length;

describe("the kept part", () => {
  it("keeps the newest tool uses whole when they fit under the cap", () => {
    const conversation = reads(12, 400).build();
    const start = keptPart(conversation, { toolUses: 8, toolUsesUpTo: 1_000_000 }).start;
    expect(start).toBe(conversation.length - 16);
  });

  it("keeps fewer tool uses than asked when they would take more than the cap", () => {
    const conversation = reads(12, 4000).build();
    const upTo = 3000;
    const start = keptPart(conversation, { toolUses: 8, toolUsesUpTo: upTo }).start;
    expect(tokensFrom(conversation, start)).toBeLessThanOrEqual(upTo);
    // The next older message would have taken it past the cap.
    expect(tokensFrom(conversation, start - 1)).toBeGreaterThan(upTo);
  });

  it("keeps the newest step whatever its size (parallel uses, results, a user line after), and the newest share above the cap", () => {
    const builder = reads(3, 40_000);
    builder.toolCalls([
      { name: "read_file", input: { path: "a.ts" }, result: "a".repeat(40_000) },
      { name: "read_file", input: { path: "b.ts" }, result: "b".repeat(40_000) },
    ]);
    builder.user(`A paste: ${"p".repeat(20_000)}`);
    const conversation = builder.build();
    const newestStep = conversation.findLastIndex((message) => message.role === "assistant");
    const start = keptPart(conversation, { toolUses: 8, toolUsesUpTo: 10 }).start;
    expect(start).toBe(newestStep);
    expect(usesFrom(conversation, start)).toBe(2);
    const share = 40_000;
    const wider = keptPart(conversation, { toolUses: 8, tokens: share, toolUsesUpTo: 10 }).start;
    expect(tokensFrom(conversation, wider)).toBeGreaterThanOrEqual(share);
    expect(tokensFrom(conversation, wider + 1)).toBeLessThan(share);
  });

  it("caps the tool uses halfway from the target to the threshold, with a known window", () => {
    // Twelve results of ~10% of a 200k window: 8 would keep ~80% whole, over the threshold.
    const conversation = reads(12, 80_000).build();
    const settings = { keepRecentToolUses: 8, threshold: 0.72, targetUtilization: 0.2 };
    expect(keptToolUses(conversation, settings, 200_000)).toBe(4);
    const start = keptPartStart(conversation, settings, 200_000)!;
    expect(tokensFrom(conversation, start)).toBeLessThanOrEqual(0.46 * 200_000);
    // Results of ~30% each: the newest step alone, over the cap.
    expect(keptToolUses(reads(12, 240_000).build(), settings, 200_000)).toBe(1);
    // Without a target, a threshold or a window, all 8 stay.
    const untargeted = { keepRecentToolUses: 8, threshold: 0.72 };
    expect(keptToolUses(conversation, untargeted, 200_000)).toBe(8);
    expect(keptToolUses(conversation, settings, undefined)).toBe(8);
    // Small results: the cap does not bind.
    expect(keptToolUses(reads(12, 4000).build(), settings, 200_000)).toBe(8);
  });

  it("keeps all the tool uses and the newest tokens when there are fewer uses than asked", () => {
    // A chat: no tool use, then two reads, then more chat.
    const builder = new ConversationBuilder().user("Hello.").assistant(`Hi. ${"h".repeat(4000)}`);
    reads(2, 400, builder).assistant("Read them.");
    for (let turn = 0; turn < 6; turn += 1)
      builder.user(`Question ${turn}: ${"q".repeat(400)}`).assistant(`Answer ${"a".repeat(800)}`);
    const conversation = builder.build();
    const oldestUse = conversation.findIndex(
      (message) =>
        message.role === "assistant" && message.content.some((block) => block.type === "tool_use"),
    );
    // The uses alone: from the oldest of them, not the whole conversation.
    expect(keptPart(conversation, { toolUses: 8 })).toEqual({ start: oldestUse, uses: 2 });
    // The newest tokens reach further back than the uses: from where they are covered.
    const all = tokensFrom(conversation, 0);
    const wide = keptPart(conversation, { toolUses: 8, tokens: all - 100 }).start;
    expect(wide).toBeLessThan(oldestUse);
    expect(tokensFrom(conversation, wide)).toBeGreaterThanOrEqual(all - 100);
    expect(tokensFrom(conversation, wide + 1)).toBeLessThan(all - 100);
    // Tokens the conversation cannot cover: all of it.
    expect(keptPart(conversation, { toolUses: 8, tokens: all + 1 }).start).toBe(0);
    // Without tool uses, the newest tokens alone.
    const chat = conversation.slice(oldestUse + 4);
    const start = keptPart(chat, { toolUses: 8, tokens: 500 }).start;
    expect(tokensFrom(chat, start)).toBeGreaterThanOrEqual(500);
    expect(tokensFrom(chat, start + 1)).toBeLessThan(500);
  });
});
