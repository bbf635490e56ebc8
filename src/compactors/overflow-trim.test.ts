import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  deepFreeze,
  longTurnArbitrary,
  trajectoryArbitrary,
} from "../../test/arbitraries/trajectory.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { isSummaryTurn } from "../core/turn.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { LEDGER_HEADING } from "./file-ledger.js";
import { keepingTrimOptions, TRIM_NOTICE, trimOldest } from "./overflow-trim.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

const SEED = 20261130;

function oneLongTurn(calls: number): Message[] {
  const builder = new ConversationBuilder().user("Migrate every module; never edit generated/");
  for (let call = 0; call < calls; call += 1) {
    builder.toolCall({ name: "edit", input: { file: `m${call}.ts` }, result: "r".repeat(800) });
  }
  return builder.build();
}

describe("trimOldest", () => {
  it("removes the oldest exchanges of one long turn, keeping the request and the newest ones", () => {
    const conversation = oneLongTurn(40);
    const budget = Math.floor(estimateTokens(conversation) / 4);
    const output = trimOldest(conversation, budget)!;
    expect(estimateTokens(output.conversation)).toBeLessThanOrEqual(budget);
    expect(output.conversation[0]?.content[0]).toMatchObject({ text: TRIM_NOTICE });
    expect(output.conversation[1]).toBe(conversation[0]);
    expect(output.conversation.at(-1)).toBe(conversation.at(-1));
    expect(validateConversation(output.conversation)).toEqual([]);
    // Nothing is lost: removed + kept (without the notice) is the original, in order.
    const kept = output.conversation.filter((message) => !isSummaryTurn(message.turnId));
    const byId = new Map(conversation.map((message, index) => [message.id, index]));
    expect(
      [...output.removed, ...kept].map((message) => byId.get(message.id)).sort((a, b) => a! - b!),
    ).toEqual(conversation.map((_, index) => index));
  });

  it("returns undefined when nothing can be removed, and never adds a second notice", () => {
    const [only] = oneLongTurn(0);
    expect(trimOldest([only!], 0)).toBeUndefined();
    const once = trimOldest(oneLongTurn(20), 1500)!;
    const twice = trimOldest(once.conversation, 600);
    expect(twice?.conversation.filter((message) => isSummaryTurn(message.turnId))).toHaveLength(1);
  });

  it("returns undefined when the notice would be larger than what goes (a trim never grows the context)", () => {
    const conversation = new ConversationBuilder()
      .user("Read f0")
      .assistant("Read.")
      .user("Read f1")
      .assistant("Read.")
      .build();
    expect(trimOldest(conversation, 0)).toBeUndefined();
    expect(trimOldest(conversation, 0, keepingTrimOptions(40_000))).toBeUndefined();
    // Larger messages go, whatever the notice keeps of them.
    const long = [...oneLongTurn(4), ...conversation];
    const output = trimOldest(long, 0, keepingTrimOptions(40_000))!;
    expect(estimateTokens(output.conversation)).toBeLessThan(estimateTokens(long));
  });

  it("keeps any valid conversation valid, and the removed and kept parts partition it", () => {
    fc.assert(
      fc.property(
        fc.oneof(trajectoryArbitrary(), longTurnArbitrary({ minSteps: 5, maxSteps: 40 })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (conversation, share) => {
          deepFreeze(conversation);
          const budget = Math.floor(estimateTokens(conversation) * share);
          const output = trimOldest(conversation, budget);
          if (output === undefined) return;
          expect(validateConversation(output.conversation)).toEqual([]);
          expect(output.conversation.at(-1)).toBe(conversation.at(-1));
          const ids = new Set(output.conversation.map((message) => message.id));
          for (const message of conversation) {
            const kept = ids.has(message.id);
            const removed = output.removed.includes(message);
            expect(kept !== removed || isSummaryTurn(message.turnId)).toBe(true);
          }
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
  });

  it("carries the paths the removed tool results mentioned in its ledger", () => {
    const builder = new ConversationBuilder().user("Fix the login bug");
    builder.toolCall({
      name: "grep",
      input: { pattern: "token" },
      result: `src/auth/login.ts:3: token ${"r".repeat(800)}`,
    });
    builder.toolCall({
      name: "bash",
      input: { command: "npm test" },
      result: `${REDACTION_NOTICE} (mentions: test/auth.test.ts) [recall r1-abcd]`,
    });
    for (let call = 0; call < 10; call += 1)
      builder.toolCall({ name: "edit", input: { file: `m${call}.ts` }, result: "r".repeat(800) });
    const conversation = builder.build();
    const output = trimOldest(conversation, Math.floor(estimateTokens(conversation) / 2), {
      ledgerTokens: 1000,
    })!;
    const ledger = output.conversation[0]!.content.find(
      (block) => block.type === "text" && block.text.startsWith(LEDGER_HEADING),
    );
    expect(ledger).toMatchObject({
      text: expect.stringContaining(
        "- mentioned in tool output: src/auth/login.ts, test/auth.test.ts",
      ),
    });
  });
});
