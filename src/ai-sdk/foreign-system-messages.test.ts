import { generateText, modelMessageSchema } from "ai";
import { describe, expect, it } from "vitest";
import { answeringModel } from "../../test/support/answering-model.js";
import { fromAnthropicMessages } from "../anthropic/index.js";
import { fromChatMessages } from "../chat-completions/index.js";
import type { Message } from "../core/message.js";
import { fromResponsesInput } from "../openai/index.js";
import { toModelMessages } from "./model-messages.js";

// The AI SDK logs its warnings to the console, which the test setup refuses.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** A request, another API's system message mid-conversation, another request. */
const CONVERSATIONS: Record<string, () => Message[]> = {
  "a Chat Completions developer message of text parts": () =>
    fromChatMessages([
      { role: "user", content: "Read a.ts" },
      { role: "developer", content: [{ type: "text", text: "Be brief." }] },
      { role: "user", content: "Now b.ts" },
    ]),
  "a Responses developer item": () =>
    fromResponsesInput([
      { role: "user", content: "Read a.ts" },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Be brief." }] },
      { role: "user", content: "Now b.ts" },
    ]),
};

describe("toModelMessages: another API's system message as the AI SDK's", () => {
  for (const [name, conversation] of Object.entries(CONVERSATIONS)) {
    it(`${name} goes as { role: "system", content } of its text`, async () => {
      const messages = toModelMessages(conversation());
      expect(messages[1]).toEqual({ role: "system", content: "Be brief." });
      for (const message of messages)
        expect(modelMessageSchema.safeParse(message).success).toBe(true);
      const result = await generateText({
        model: answeringModel("Done."),
        messages,
        allowSystemInMessages: true,
      });
      expect(result.text).toBe("Done.");
    });
  }

  it("one in the AI SDK's shape goes as it was read; one of no text is left out", () => {
    const system = { role: "system" as const, content: "Be brief." };
    const ours = fromAnthropicMessages([
      { role: "user", content: "Read a.ts" },
      system as never,
      { role: "user", content: "Now b.ts" },
    ]);
    expect(toModelMessages(ours)[1]).toEqual(system);
    const empty = fromChatMessages([
      { role: "user", content: "Read a.ts" },
      { role: "developer", content: [] },
      { role: "user", content: "Now b.ts" },
    ]);
    expect(toModelMessages(empty).map((message) => message.role)).toEqual(["user", "user"]);
  });
});
