import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { compactChatMessages } from "./compact-messages.js";

/**
 * Review 52b's finding 8: with nothing to compact, `compactChatMessages` handed back the
 * caller's array even when it held a message the API refuses and the writing mends, so whether
 * the request was valid depended on whether compaction ran.
 */

const call = { id: "c1", type: "function", function: { name: "shot", arguments: "{}" } } as const;
const question = { role: "user", content: "q" } as const;

const CASES: Record<string, [unknown[], unknown]> = {
  "an image in a tool message": [
    [
      question,
      { role: "assistant", content: null, tool_calls: [call] },
      {
        role: "tool",
        tool_call_id: "c1",
        content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }],
      },
    ],
    { role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] },
  ],
  "an assistant message of neither content nor calls": [
    [question, { role: "assistant", content: null }],
    { role: "assistant", content: "" },
  ],
  "an empty tool_calls": [
    [question, { role: "assistant", content: "a", tool_calls: [] }],
    { role: "assistant", content: "a" },
  ],
  "a user message without content": [[{ role: "user" }], { role: "user", content: "" }],
};

describe("compactChatMessages with nothing to compact", () => {
  for (const [name, [input, last]] of Object.entries(CASES)) {
    it(`mends ${name}`, async () => {
      const messages = input as ChatCompletionMessageParam[];
      const out = await compactChatMessages(messages, { contextLimit: 100_000 });
      expect(out.messages).not.toBe(messages);
      expect(out.messages.at(-1)).toEqual(last);
    });
  }

  it("hands back the caller's array itself when no message needs mending", async () => {
    const messages: ChatCompletionMessageParam[] = [
      question,
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "ok" }] },
      { role: "assistant", content: "done" },
    ];
    const out = await compactChatMessages(messages, { contextLimit: 100_000 });
    expect(out.messages).toBe(messages);
    expect(out.compacted).toBe(false);
  });
});

// Review 53's finding 7.
describe("compactChatMessages' mends, the edges", () => {
  it("mends a user message of null content; leaves an assistant refusal or function call alone", async () => {
    const nullUser = [{ role: "user", content: null }] as unknown as ChatCompletionMessageParam[];
    const mended = await compactChatMessages(nullUser, { contextLimit: 100_000 });
    expect(mended.messages).toEqual([{ role: "user", content: "" }]);
    const answered = [
      question,
      { role: "assistant", content: null, refusal: "I can't help with that." },
      { role: "user", content: "ok" },
      { role: "assistant", content: null, function_call: { name: "ls", arguments: "{}" } },
    ] as ChatCompletionMessageParam[];
    const out = await compactChatMessages(answered, { contextLimit: 100_000 });
    expect(out.messages).toBe(answered);
  });
});
