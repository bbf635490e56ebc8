import { describe, expect, it } from "vitest";
import { compactModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { compactGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { TRIM_NOTICE } from "../../src/index.js";
import { compactResponsesInput, toResponsesInput } from "../../src/openai/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import { ConversationBuilder } from "../../src/testing/index.js";

// A stateless server sends back, with each request, what the last one compacted: the last
// resort's notice (and a summary) among it. Every provider's helper reads it back as what the
// library wrote (turn u0), so the next trim folds it as the session does: one notice, the
// user's words once each, never "[Earlier user message]: [Earlier user message]: …" nested
// and grown at every trim, and never the messages after it frozen into it.

interface Format {
  to: (messages: readonly Message[]) => unknown[];
  compact: (
    wire: unknown[],
    options: CompactMessagesOptions,
  ) => Promise<{ messages: unknown[]; compacted: boolean }>;
}

const FORMATS: Record<string, Format> = {
  anthropic: { to: toAnthropicMessages, compact: compactAnthropicMessages as Format["compact"] },
  responses: { to: toResponsesInput, compact: compactResponsesInput as Format["compact"] },
  gemini: { to: toGeminiContents, compact: compactGeminiContents as Format["compact"] },
  chat: { to: toChatMessages, compact: compactChatMessages as Format["compact"] },
  "ai-sdk": { to: toModelMessages, compact: compactModelMessages as Format["compact"] },
};

/** Step `step` of the agent: a new request every 8 steps, else a read of a few KB. */
function stepMessages(builder: ConversationBuilder, step: number): void {
  if (step % 8 === 1) builder.user(`Request ${step}: keep going. Never edit generated files.`);
  builder.toolCall({
    name: "read_file",
    input: { path: `src/f${step}.ts` },
    result: `// src/f${step}.ts\n${"export const value = 1;\n".repeat(100 + (step % 4) * 40)}`,
  });
}

/** 80 steps of a stateless server: the history compacted before each, the step after what was sent. */
async function statelessRun(format: Format) {
  let history: unknown[] = [];
  let compactions = 0;
  for (let step = 1; step <= 80; step += 1) {
    const builder = new ConversationBuilder({ idPrefix: `s${step}-` });
    // The builder opens a turn with a user message: one made for it is left out unless asked.
    const asked = step % 8 === 1;
    if (!asked) builder.user("(left out)");
    stepMessages(builder, step);
    const built = builder.build();
    history = [...history, ...format.to(asked ? built : built.slice(1))];
    const { messages, compacted } = await format.compact(history, { contextLimit: 12_000 });
    if (compacted) compactions += 1;
    history = messages;
  }
  return { text: JSON.stringify(history), compactions, size: JSON.stringify(history).length };
}

describe("the last resort's notice, sent back, is folded as the session folds it", () => {
  for (const [name, format] of Object.entries(FORMATS)) {
    it(name, async () => {
      const { text, compactions, size } = await statelessRun(format);
      expect(compactions).toBeGreaterThan(10);
      expect(text).not.toContain("[Earlier user message]: [Earlier user message]");
      expect(text.split(TRIM_NOTICE).length - 1).toBeLessThanOrEqual(1);
      // The window is 12k tokens: the history sent stays well inside it.
      expect(size / 4).toBeLessThan(12_000);
    });
  }
});
