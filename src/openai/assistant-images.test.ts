import { describe, expect, it } from "vitest";
import { fromGeminiContents } from "../gemini/index.js";
import { toResponsesInput } from "./index.js";

// A Responses API assistant message takes output_text and refusal parts only.

describe("an image in an assistant message, sent to the Responses API", () => {
  it("goes in a user message of its own, where it stood", () => {
    const messages = fromGeminiContents([
      { role: "user", parts: [{ text: "Draw a cat." }] },
      {
        role: "model",
        parts: [{ text: "Here:" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }],
      },
      { role: "user", parts: [{ text: "Thanks." }] },
    ]);
    const input = toResponsesInput(messages) as { role?: string; content?: { type: string }[] }[];
    expect(input.map((item) => [item.role, item.content?.map((part) => part.type)])).toEqual([
      ["user", ["input_text"]],
      ["assistant", ["output_text"]],
      ["user", ["input_image"]],
      ["user", ["input_text"]],
    ]);
  });
});
