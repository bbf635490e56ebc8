import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { compactAnthropicMessages } from "../../src/anthropic/index.js";
import { writeAnthropicMessages } from "../../src/anthropic/request.js";
import { anthropicMessagesToOurs } from "../../src/anthropic/turns.js";
import { SUMMARY_PREFIX } from "../../src/index.js";
import {
  expectHandedBack,
  expectOriginsWriteTheSame,
  longToolLoop,
} from "../support/item-origins-check.js";

/**
 * A one-call helper hands back the caller's own params for the messages a compaction left as
 * they were: the same params the writing would make, without making them.
 */

const use = (id: string, input: object = { path: "a.ts" }) => ({
  type: "tool_use" as const,
  id,
  name: "read",
  input,
});
const result = (id: string, content: ToolResultBlockParam["content"] = `output of ${id}`) => ({
  type: "tool_result" as const,
  tool_use_id: id,
  content,
});

/** Conversations of every shape the reader takes: its quick shapes and the schemas' others. */
const CONVERSATIONS: MessageParam[][] = [
  [
    { role: "user", content: "Fix the test." },
    { role: "assistant", content: [{ type: "text", text: "Reading." }, use("t1")] },
    { role: "user", content: [result("t1")] },
    { role: "assistant", content: "Done." },
  ],
  [
    {
      role: "user",
      content: [{ type: "text", text: "Go.", cache_control: { type: "ephemeral" } }],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Plan.", signature: "sig-1" },
        { type: "redacted_thinking", data: "opaque" },
        use("t1", { nested: { list: [1, 2, { deep: null }] } }),
        use("t2"),
      ],
    },
    {
      role: "user",
      content: [
        result("t1", [
          { type: "text", text: "part one" },
          { type: "text", text: "part two" },
        ]),
        { ...result("t2", "failed"), is_error: true },
      ],
    },
    { role: "assistant", content: [use("t3")] },
    {
      role: "user",
      content: [
        { ...result("t3", "fine"), is_error: false },
        { type: "text", text: "Also check the docs." },
      ],
    },
    { role: "assistant", content: [use("t4")] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t4" }] },
    { role: "assistant", content: [{ type: "text", text: "All done." }] },
  ],
  [
    // Consecutive messages of one role (joined when written), a tool result not leading.
    { role: "user", content: "First." },
    { role: "user", content: [{ type: "text", text: "Second." }] },
    { role: "assistant", content: [use("t1")] },
    { role: "user", content: [{ type: "text", text: "Note first." }, result("t1")] },
    { role: "assistant", content: [use("t2")] },
    {
      role: "user",
      content: [
        result("t2", [
          { type: "text", text: "see the image" },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
          },
        ]),
      ],
    },
    { role: "assistant", content: "Seen." },
  ],
  [
    // A summary leading the first message (read as two), a system message mid-conversation.
    { role: "user", content: `${SUMMARY_PREFIX}\nEarlier work.\n\nContinue the task.` },
    { role: "assistant", content: [use("t1")] },
    { role: "user", content: [result("t1")] },
    { role: "system", content: "Be brief." } as unknown as MessageParam,
    { role: "assistant", content: [{ type: "text", text: "Brief.", citations: null }] },
    { role: "user", content: "Thanks." },
  ],
  [
    // Blocks of other APIs, which the writing leaves out: the caller's params are not sent.
    { role: "user", content: "Go." },
    {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "file", file: { file_id: "f" } },
      ],
    } as unknown as MessageParam,
    { role: "assistant", content: [use("t1")] },
    {
      role: "user",
      content: [
        result("t1", [
          { type: "text", text: "b" },
          { type: "refusal", refusal: "no" },
        ] as unknown as ToolResultBlockParam["content"]),
      ],
    },
    { role: "assistant", content: "Done." },
  ],
];

describe("compactAnthropicMessages' unchanged params", () => {
  it("writes the caller's params where it would write the same ones", () => {
    const reused = expectOriginsWriteTheSame(
      {
        from: (items, origins) => anthropicMessagesToOurs(items, { idPrefix: "" }, origins),
        to: writeAnthropicMessages,
      },
      CONVERSATIONS,
    );
    expect(reused).toBeGreaterThan(20);
  });

  it("hands back the caller's params a compaction left unchanged", async () => {
    const history = longToolLoop<MessageParam>(
      { role: "user", content: "Read every file." },
      (n) => [
        { role: "assistant", content: [{ type: "text", text: `Step ${n}.` }, use(`t${n}`)] },
        { role: "user", content: [result(`t${n}`, "x".repeat(4000))] },
      ],
      (turn) => [
        { role: "assistant", content: `Turn ${turn} done.` },
        { role: "user", content: `Request ${turn + 1}.` },
      ],
    );
    // Every assistant message and request stayed as it was; masked results are new.
    const kept = await expectHandedBack(history, compactAnthropicMessages, 40);
    for (const message of kept) expect(JSON.stringify(message)).not.toContain("[recall");
  });
});
