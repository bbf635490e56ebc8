import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepFreeze, trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { ConversationBuilder, textBlock, toolResultBlock } from "../testing/builders.js";
import {
  hasUserText,
  isUserRequest,
  latestRequestIndex,
  latestSafeCut,
  readableMessages,
  safeCuts,
  suffixTokenSums,
} from "./conversation-structure.js";
import type { Message } from "./message.js";
import { estimateMessageTokens, estimateTokens } from "./message-memo.js";
import { SUMMARY_TURN_ID } from "./turn.js";
import { validateConversation } from "./validate-conversation.js";

/** u1: request, [tool_use a], [result a], answer; u2: request, [tool_use b, c], [results b, c]. */
function twoTurns(): Message[] {
  return new ConversationBuilder()
    .user("first")
    .toolCall({ name: "read", result: "a" })
    .assistant("answered")
    .user("second")
    .toolCalls([
      { name: "read", result: "b" },
      { name: "grep", result: "c" },
    ])
    .build();
}

describe("safeCuts", () => {
  it("marks every cut but those between a tool use and its result", () => {
    expect(safeCuts(twoTurns())).toEqual([true, true, false, true, true, true, false, true]);
  });

  it("is true everywhere for a conversation without tools, including both ends", () => {
    const conversation = new ConversationBuilder().user("a").assistant("b").user("c").build();
    expect(safeCuts(conversation)).toEqual([true, true, true, true]);
    expect(safeCuts([])).toEqual([true]);
  });

  it("never marks a cut that separates any tool pair, over random trajectories", () => {
    fc.assert(
      fc.property(trajectoryArbitrary(), (conversation) => {
        deepFreeze(conversation);
        const safe = safeCuts(conversation);
        expect(safe).toHaveLength(conversation.length + 1);
        for (let cut = 0; cut <= conversation.length; cut += 1) {
          const before = new Set(
            conversation
              .slice(0, cut)
              .flatMap((message) => message.content)
              .flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
          );
          const splits = conversation
            .slice(cut)
            .some((message) =>
              message.content.some(
                (block) => block.type === "tool_result" && before.has(block.toolUseId),
              ),
            );
          expect(safe[cut]).toBe(!splits);
          // No result after a safe cut is left without its use.
          if (safe[cut]) {
            const rest = conversation.slice(cut);
            expect(
              validateConversation(rest).filter((problem) => problem.code === "orphan_tool_result"),
            ).toEqual([]);
          }
        }
      }),
      { seed: 20261201, numRuns: 200 },
    );
  });
});

describe("latestSafeCut", () => {
  it("is the latest safe cut at or before the index asked, or 0", () => {
    const safe = safeCuts(twoTurns());
    expect(latestSafeCut(safe, 6)).toBe(5);
    expect(latestSafeCut(safe, 2)).toBe(1);
    expect(latestSafeCut(safe, 100)).toBe(7);
    expect(latestSafeCut([true, false, false], 2)).toBe(0);
  });
});

describe("the latest request", () => {
  it("is the last user message with the user's own text and no tool results", () => {
    const conversation = twoTurns();
    expect(latestRequestIndex(conversation)).toBe(4);
    expect(isUserRequest(conversation[4]!)).toBe(true);
    // A message of tool results is the agent's loop, not a request.
    expect(isUserRequest(conversation[6]!)).toBe(false);
  });

  it("is not a summary, an image alone, whitespace, or words beside tool results", () => {
    const [request] = new ConversationBuilder().user("do it").build();
    const variants: Message[] = [
      { ...request!, turnId: SUMMARY_TURN_ID },
      {
        ...request!,
        content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }],
      },
      { ...request!, content: [textBlock("  \n ")] },
      { ...request!, content: [toolResultBlock("toolu_9", "ok"), textBlock("and then?")] },
    ];
    for (const message of variants) expect(isUserRequest(message)).toBe(false);
    // Words beside tool results are still the user's own text.
    expect(hasUserText(variants[3]!)).toBe(true);
    expect(hasUserText(variants[0]!)).toBe(false);
    expect(latestRequestIndex(variants)).toBe(-1);
    expect(latestRequestIndex([request!, ...variants])).toBe(0);
  });
});

describe("suffixTokenSums", () => {
  it("sums the estimate from each index to the end", () => {
    const conversation = twoTurns();
    const sums = suffixTokenSums(conversation);
    expect(sums).toHaveLength(conversation.length + 1);
    expect(sums[0]).toBe(estimateTokens(conversation));
    expect(sums[conversation.length]).toBe(0);
    for (let index = 0; index < conversation.length; index += 1)
      expect(sums[index]! - sums[index + 1]!).toBe(estimateMessageTokens(conversation[index]!));
  });
});

describe("readableMessages", () => {
  it("copies a frozen array into a plain one of the same messages, and leaves others as they are", () => {
    const messages = twoTurns();
    expect(readableMessages(messages)).toBe(messages);
    const frozen = Object.freeze([...messages]);
    const readable = readableMessages(frozen);
    expect(readable).not.toBe(frozen);
    expect(Object.isFrozen(readable)).toBe(false);
    expect(readable).toHaveLength(messages.length);
    expect(readable.every((message, index) => message === messages[index])).toBe(true);
  });
});
