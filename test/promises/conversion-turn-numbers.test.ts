import { describe, expect, it } from "vitest";
import { fromModelMessages } from "../../src/ai-sdk/index.js";
import { fromAnthropicMessages } from "../../src/anthropic/index.js";
import { fromChatMessages } from "../../src/chat-completions/index.js";
import { ValidationError } from "../../src/core/errors.js";
import { fromGeminiContents } from "../../src/gemini/index.js";
import { fromLangChainMessages } from "../../src/langchain/index.js";
import { fromResponsesInput } from "../../src/openai/index.js";

// A conversion remembers its messages as checked: turn numbers counted from a `firstTurnNumber`
// near 2^53 would pass it there and fail far away (a session's append). Each converter refuses
// the option where it enters, naming it (found by a review: LangChain's, then every other).

const LAST_SAFE = Number.MAX_SAFE_INTEGER;

/** A request, a reply and a request: two turns, in the role-and-content shape four formats share. */
const ROLES = [
  { role: "user", content: "a" },
  { role: "assistant", content: "b" },
  { role: "user", content: "c" },
] as const;

const CONVERTERS: Record<string, (first: number) => unknown[]> = {
  fromAnthropicMessages: (first) => fromAnthropicMessages([...ROLES], { firstTurnNumber: first }),
  fromResponsesInput: (first) => fromResponsesInput([...ROLES], { firstTurnNumber: first }),
  fromChatMessages: (first) => fromChatMessages([...ROLES], { firstTurnNumber: first }),
  fromModelMessages: (first) => fromModelMessages([...ROLES], { firstTurnNumber: first }),
  fromGeminiContents: (first) =>
    fromGeminiContents(
      [
        { role: "user", parts: [{ text: "a" }] },
        { role: "model", parts: [{ text: "b" }] },
        { role: "user", parts: [{ text: "c" }] },
      ],
      { firstTurnNumber: first },
    ),
  fromLangChainMessages: (first) =>
    fromLangChainMessages(
      [
        { type: "human", content: "a" },
        { type: "ai", content: "b" },
        { type: "human", content: "c" },
      ] as never,
      { firstTurnNumber: first },
    ),
};

describe.each(Object.entries(CONVERTERS))("%s", (name, convert) => {
  it("refuses a firstTurnNumber that leaves no room for the turns, naming it", () => {
    expect(() => convert(LAST_SAFE)).toThrow(ValidationError);
    expect(() => convert(LAST_SAFE)).toThrow(`Invalid ${name} options: firstTurnNumber:`);
    // Room for the two turns: taken.
    expect(convert(LAST_SAFE - 1)).toHaveLength(3);
  });
});
