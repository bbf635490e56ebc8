import { describe, expect, it } from "vitest";
import { fromModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { fromAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { fromChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { fromGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { toLangChainMessages } from "../../src/langchain/index.js";
import { toResponsesInput } from "../../src/openai/index.js";
import { ConversationBuilder } from "../../src/testing/index.js";
import { refusedPaths } from "../support/refusals.js";

// Every provider's conversion takes our messages only: a provider's own shape, a message
// missing its fields or anything else is a ValidationError naming the field, never an
// internal TypeError or a request quietly made of nothing (issue 31, "Wrong shapes pass
// silently", for every provider).

const CONVERSIONS: Record<string, (messages: readonly Message[]) => unknown> = {
  toAnthropicMessages,
  toResponsesInput,
  toGeminiContents,
  toChatMessages,
  toModelMessages,
  toLangChainMessages,
};

/** The paths of the issues `convert` refused `value` with (empty: it took it). */
const issuesOf = (convert: (messages: readonly Message[]) => unknown, value: unknown) =>
  refusedPaths(() => convert(value as Message[]));

describe("every provider's conversion refuses what is not our messages, naming the field", () => {
  for (const [name, convert] of Object.entries(CONVERSIONS)) {
    it(name, () => {
      // A provider's message in place of ours: what the provider's `from…` makes of it is ours.
      expect(issuesOf(convert, [{ role: "user", content: "hi" }])).toEqual(
        expect.arrayContaining(["0.id", "0.turnId", "0.content"]),
      );
      expect(issuesOf(convert, [{ role: "user" }])).toEqual(expect.arrayContaining(["0.content"]));
      expect(issuesOf(convert, "hi")).toEqual([""]);
      // Our messages go through.
      const ours = new ConversationBuilder()
        .user("hi")
        .toolCall({ name: "read_file", result: "contents" })
        .assistant("done")
        .build();
      expect(issuesOf(convert, ours)).toEqual([]);
    });
  }
});

describe("a value nesting deeper than the limit is refused at its field", () => {
  const deep = (levels: number) => {
    const top: Record<string, unknown> = {};
    let at = top;
    for (let level = 0; level < levels; level += 1) {
      const next: Record<string, unknown> = {};
      at["a"] = next;
      at = next;
    }
    return top;
  };

  it("in every reader: the field, or the message it is in", () => {
    const d = deep(300);
    const use = { type: "tool_use", id: "t", name: "n", input: d };
    expect(
      refusedPaths(() =>
        fromAnthropicMessages([
          { role: "user", content: "a" },
          { role: "assistant", content: [use] },
        ]),
      ),
    ).toEqual(["messages.1"]);
    // The message as a whole: its depth is counted from it.
    expect(refusedPaths(() => fromChatMessages([{ role: "user", content: "x", meta: d }]))).toEqual(
      ["0"],
    );
    const call = { functionCall: { id: "c", name: "n", args: d } };
    expect(refusedPaths(() => fromGeminiContents([{ role: "model", parts: [call] }]))).toEqual([
      "0.parts.0",
    ]);
    expect(
      refusedPaths(() => fromModelMessages([{ role: "user", content: "x", providerOptions: d }])),
    ).toEqual(["0.providerOptions"]);
  });
});

describe("what fromModelMessages returns shares no object with the caller's messages", () => {
  it("copies a tool call's input: the caller's part may change, the messages do not", () => {
    const input = { path: "a.ts", options: { depth: 1 } };
    const messages = fromModelMessages([
      { role: "user", content: "Read a.ts" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input }],
      },
    ]);
    input.options.depth = 99;
    const call = messages[1]!.content[0]!;
    expect(call.type === "tool_use" && call.input).toEqual({ path: "a.ts", options: { depth: 1 } });
    expect(call.type === "tool_use" && call.input).not.toBe(input);
  });
});
