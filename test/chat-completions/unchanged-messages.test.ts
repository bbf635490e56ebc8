import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { chatMessagesToOurs } from "../../src/chat-completions/chat-messages-in.js";
import { writeChatMessages } from "../../src/chat-completions/chat-messages-out.js";
import { compactChatMessages } from "../../src/chat-completions/index.js";
import { SUMMARY_PREFIX } from "../../src/index.js";
import {
  expectHandedBack,
  expectOriginsWriteTheSame,
  longToolLoop,
} from "../support/item-origins-check.js";

/**
 * A one-call helper hands back the caller's own chat messages for the messages a compaction
 * left as they were: the same the writing would make, without making them.
 */

const call = (id: string, args = '{"path":"a.ts"}') => ({
  type: "function" as const,
  id,
  function: { name: "read", arguments: args },
});
const tool = (id: string, content: unknown = `output of ${id}`) =>
  ({ role: "tool", tool_call_id: id, content }) as ChatCompletionMessageParam;

/** Conversations of every shape the reader takes: its quick shapes and the full reading's others. */
const CONVERSATIONS: ChatCompletionMessageParam[][] = [
  [
    { role: "system", content: "Be careful." },
    { role: "user", content: "Fix the test." },
    {
      role: "assistant",
      content: null,
      tool_calls: [call("c1"), call("c2", '{ "path" : "b.ts" }')],
    },
    tool("c1"),
    tool("c2"),
    { role: "assistant", content: "Done." },
  ],
  [
    { role: "developer", content: [{ type: "text", text: "Rules." }] },
    {
      role: "user",
      name: "ana",
      content: [
        { type: "text", text: "Look at this." },
        { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
      ],
    },
    {
      role: "assistant",
      content: "Reading.",
      reasoning_content: "I should read it.",
      tool_calls: [call("c1")],
    } as ChatCompletionMessageParam,
    tool("c1", [
      { type: "text", text: "part one" },
      { type: "text", text: "part two" },
    ]),
    { role: "assistant", tool_calls: [call("c2")] } as ChatCompletionMessageParam,
    tool("c2", [
      { type: "text", text: "see the image" },
      { type: "image_url", image_url: { url: "https://example.com/b.png" } },
    ]),
    { role: "assistant", content: null, refusal: "I cannot do that." },
    {
      role: "user",
      content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }],
    },
    { role: "assistant", content: "" },
  ],
  [
    // A summary leading the first message (read as two), a function message, consecutive users.
    { role: "user", content: `${SUMMARY_PREFIX}\nEarlier work.\n\nContinue the task.` },
    { role: "assistant", content: null, function_call: { name: "read", arguments: "{}" } },
    { role: "function", name: "read", content: "file text" },
    { role: "user", content: "First." },
    { role: "user", content: [{ type: "text", text: "Second." }] },
    { role: "assistant", content: [{ type: "text", text: "Both read." }] },
  ],
  [
    // What the writing mends: content null or absent where some is needed, calls listed empty.
    { role: "user", content: null },
    { role: "assistant", content: null },
    { role: "user" },
    { role: "assistant" },
    { role: "user", content: "Next." },
    { role: "assistant", content: "x", tool_calls: [] },
    { role: "user", content: "Last." },
    { role: "assistant", content: null, reasoning_content: "r" },
  ] as unknown as ChatCompletionMessageParam[],
];

describe("compactChatMessages' unchanged messages", () => {
  it("writes the caller's chat messages where it would write the same ones", () => {
    const reused = expectOriginsWriteTheSame(
      {
        from: (items, origins) => chatMessagesToOurs(items, { idPrefix: "" }, origins),
        to: (messages, origins) => writeChatMessages(messages, "keep", origins),
      },
      CONVERSATIONS,
    );
    expect(reused).toBeGreaterThan(20);
  });

  it("hands back the caller's chat messages a compaction left unchanged", async () => {
    const history = longToolLoop<ChatCompletionMessageParam>(
      { role: "user", content: "Read every file." },
      (n) => [
        { role: "assistant", content: `Step ${n}.`, tool_calls: [call(`c${n}`)] },
        tool(`c${n}`, "x".repeat(4000)),
      ],
      (turn) => [
        { role: "assistant", content: `Turn ${turn} done.` },
        { role: "user", content: `Request ${turn + 1}.` },
      ],
    );
    await expectHandedBack(history, compactChatMessages, 40);
  });
});
