import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepFreeze, trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { isSummaryTurn } from "../core/turn.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { TRIM_NOTICE } from "./overflow-trim.js";
import { ThresholdCompactor } from "./threshold-compactor.js";

/** Turns of a coding agent: a user directive, then edits whose results are long. */
function coding(turns: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 0; turn < turns; turn += 1) {
    builder.user(`Turn ${turn}: never touch vendor/${turn}.`);
    builder.toolCall({
      name: "edit_file",
      input: { path: `src/m${turn}.ts` },
      result: `edited src/m${turn}.ts ${"x".repeat(1600)}`,
    });
    builder.assistant(`Done with turn ${turn}. ${"y".repeat(400)}`);
  }
  return builder.build();
}

const dropping = (options: ConstructorParameters<typeof ThresholdCompactor>[0] = {}) =>
  new ThresholdCompactor({
    threshold: 0.5,
    targetUtilization: 0.1,
    keepRecentToolUses: 1,
    toolCompaction: "redact",
    dropOldest: true,
    ...options,
  });

describe("ThresholdCompactor dropOldest", () => {
  it("masks, then removes the oldest messages in the same rewrite, down to the target", () => {
    const conversation = coding(20);
    const contextLimit = Math.ceil(estimateTokens(conversation) / 0.8);
    const { conversation: after, result } = dropping().compact(conversation, new Map(), {
      contextLimit,
      contextUsed: estimateTokens(conversation),
    });
    expect(estimateTokens(after)).toBeLessThanOrEqual(0.1 * contextLimit);
    expect(result.messagesRemoved).toBeGreaterThan(0);
    expect(result.tokensAfter).toBe(estimateTokens(after));
    expect(validateConversation(after)).toEqual([]);
    // The notice keeps the user's words and the files the removed tool calls edited.
    const notice = after.find((message) => isSummaryTurn(message.turnId))!;
    const text = JSON.stringify(notice.content);
    expect(text).toContain(TRIM_NOTICE);
    expect(text).toContain("never touch vendor/0.");
    expect(text).toContain("src/m0.ts");
    // The newest message is kept as it was.
    expect(after.at(-1)).toBe(conversation.at(-1));
  });

  it("only masks when masking reaches the target, and only masks without dropOldest", () => {
    const conversation = coding(20);
    const contextUsed = estimateTokens(conversation);
    const loose = { contextLimit: Math.ceil(contextUsed / 0.8), contextUsed };
    const masked = dropping({ targetUtilization: 0.5 }).compact(conversation, new Map(), loose);
    expect(masked.result.messagesRemoved).toBeUndefined();
    expect(masked.conversation).toHaveLength(conversation.length);
    const plain = dropping({ dropOldest: false }).compact(conversation, new Map(), loose);
    expect(plain.result.messagesRemoved).toBeUndefined();
    expect(plain.conversation).toHaveLength(conversation.length);
  });

  it("judges clearAtLeast on masking and removal together", () => {
    const conversation = coding(20);
    const contextUsed = estimateTokens(conversation);
    const context = { contextLimit: Math.ceil(contextUsed / 0.8), contextUsed };
    const freed =
      contextUsed -
      estimateTokens(dropping().compact(conversation, new Map(), context).conversation);
    const enough = dropping({ clearAtLeast: freed }).compact(conversation, new Map(), context);
    expect(enough.result.messagesRemoved).toBeGreaterThan(0);
    const tooMuch = dropping({ clearAtLeast: freed + 1 }).compact(conversation, new Map(), context);
    expect(tooMuch.skipReason).toMatch(/under clearAtLeast/);
    expect(tooMuch.conversation).toEqual(conversation);
  });

  it("keeps any valid conversation valid and loses nothing the notice or the archive cannot name", () => {
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.double({ min: 0.05, max: 0.5, noNaN: true }),
        (conversation, target) => {
          deepFreeze(conversation);
          const contextUsed = estimateTokens(conversation);
          const output = dropping({ threshold: 0.5, targetUtilization: target }).compact(
            conversation,
            new Map(),
            { contextLimit: Math.max(1, Math.ceil(contextUsed / 0.9)), contextUsed },
          );
          expect(validateConversation(output.conversation)).toEqual([]);
          // The messages kept are the originals (or their masked copies), in order.
          const byId = new Map(conversation.map((message, index) => [message.id, index]));
          const order = output.conversation
            .filter((message) => !isSummaryTurn(message.turnId) || byId.has(message.id))
            .map((message) => byId.get(message.id)!);
          expect(order).toEqual([...order].sort((a, b) => a - b));
        },
      ),
      { seed: 20261202, numRuns: 150 },
    );
  });
});
