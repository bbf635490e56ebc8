import { describe, expect, it } from "vitest";
import { compactModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { compactGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { compactResponsesInput, toResponsesInput } from "../../src/openai/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import { ConversationBuilder } from "../../src/testing/index.js";

// Every provider's one-call helper, on the same conversation: a stateless server that is sent
// the raw history again compacts it to the same request, byte for byte (the prompt cache reads
// it), however long the user's words the notice clips (they name their message).

type Helper = (
  messages: readonly Message[],
  options: CompactMessagesOptions,
) => Promise<{ messages: unknown[]; compacted: boolean }>;

const HELPERS: Record<string, Helper> = {
  compactAnthropicMessages: (messages, options) =>
    compactAnthropicMessages(toAnthropicMessages(messages), options),
  compactResponsesInput: (messages, options) =>
    compactResponsesInput(toResponsesInput(messages), options),
  compactGeminiContents: (messages, options) =>
    compactGeminiContents(toGeminiContents(messages), options),
  compactChatMessages: (messages, options) =>
    compactChatMessages(toChatMessages(messages), options),
  compactModelMessages: (messages, options) =>
    compactModelMessages(toModelMessages(messages), options),
};

/** Turns of a long request (the user's words, longer than a notice keeps) and a few reads. */
function longRequests(turns: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`Request ${turn}: ${"never touch the vendored code, ".repeat(120)}`);
    for (let call = 1; call <= 3; call += 1)
      builder.toolCall({
        name: "read_file",
        input: { path: `src/t${turn}/f${call}.ts` },
        result: `// src/t${turn}/f${call}.ts\n${"export const value = 1;\n".repeat(120)}`,
      });
    builder.assistant(`Done with request ${turn}.`);
  }
  return builder.build();
}

describe("a one-call helper compacts the same history to the same request at every call", () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(name, async () => {
      const conversation = longRequests(12);
      const options = { contextLimit: 16_000 };
      const first = await helper(conversation, options);
      const again = await helper(conversation, options);
      expect(first.compacted).toBe(true);
      expect(JSON.stringify(first.messages)).toContain("cut here");
      expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    });
  }
});
