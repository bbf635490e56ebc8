import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../core/message-memo.js";
import { validateConversation } from "../core/validate-conversation.js";
import { compactResponsesInput } from "../openai/compact-input.js";
import { fromResponsesInput } from "../openai/responses-input.js";
import { compactAnthropicMessages } from "./compact-messages.js";
import { fromAnthropicMessages } from "./turns.js";

/**
 * A system reminder in every turn (review 52c's findings 1 and 2). Every system message was
 * pinned on the stateless paths: the reminders of the removed turns came back in one run after
 * the summary, which the Messages API refuses (a system message must follow a user turn and
 * precede an assistant turn), and no last resort could remove them, so the output stayed 2x to
 * 4x over the window with no error. Only the system messages that open the conversation are its
 * instructions; later ones go with their turns, as the platforms' compaction summarizes them.
 */

function withReminders(turns: number): MessageParam[] {
  const messages: MessageParam[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(
      { role: "user", content: `question ${turn} ${"u".repeat(200)}` },
      { role: "system", content: `Reminder ${turn}: today is day ${turn}.` } as never,
      { role: "assistant", content: `answer ${turn} ${"a".repeat(300)}` },
    );
  }
  messages.push({ role: "user", content: "last question" });
  return messages;
}

const SIZES = [
  [20, 2_000],
  [50, 2_000],
  [200, 4_000],
  [300, 8_000],
] as const;

describe("system reminders on the stateless paths", () => {
  for (const [turns, contextLimit] of SIZES) {
    it(`compactAnthropicMessages, ${turns} turns in ${contextLimit} tokens: valid, in the window, the last reminder kept`, async () => {
      const input = withReminders(turns);
      expect(validateConversation(fromAnthropicMessages(input), { provider: "anthropic" })).toEqual(
        [],
      );
      const { messages, compacted, error } = await compactAnthropicMessages(input, {
        contextLimit,
      });
      expect(compacted).toBe(true);
      expect(error).toBeUndefined();
      const output = fromAnthropicMessages(messages);
      expect(validateConversation(output, { provider: "anthropic" })).toEqual([]);
      expect(estimateTokens(output)).toBeLessThanOrEqual(contextLimit);
      const reminders = messages.filter((message) => (message.role as string) === "system");
      expect(reminders.at(-1)?.content).toBe(`Reminder ${turns - 1}: today is day ${turns - 1}.`);
      expect(reminders.length).toBeLessThan(turns);
    });
  }

  it("compactResponsesInput: the opening developer message stays first; later ones go with their turns", async () => {
    const input: unknown[] = [{ role: "developer", content: "You are a careful assistant." }];
    for (let turn = 0; turn < 300; turn += 1) {
      input.push(
        { role: "user", content: `question ${turn} ${"u".repeat(200)}` },
        { role: "developer", content: `Reminder ${turn}: today is day ${turn}.` },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: `answer ${turn} ${"a".repeat(300)}` }],
        },
      );
    }
    input.push({ role: "user", content: "last question" });
    const { messages, compacted } = await compactResponsesInput(input as never, {
      contextLimit: 8_000,
    });
    expect(compacted).toBe(true);
    expect(messages[0]).toEqual(input[0]);
    expect(estimateTokens(fromResponsesInput(messages))).toBeLessThanOrEqual(8_000);
  });
});
