import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { SUMMARY_PREFIX } from "../../src/index.js";
import { compactResponsesInput } from "../../src/openai/index.js";
import { responsesInputMessages } from "../../src/openai/responses-input.js";
import { writeResponsesInput } from "../../src/openai/responses-output.js";
import {
  expectHandedBack,
  expectOriginsWriteTheSame,
  longToolLoop,
} from "../support/item-origins-check.js";

/**
 * A one-call helper hands back the caller's own items for the messages a compaction left as
 * they were: the same the writing would make, without making them.
 */

const call = (id: string) =>
  ({ type: "function_call", call_id: id, name: "read", arguments: '{"path":"a.ts"}' }) as const;
const output = (id: string, text = `output of ${id}`) =>
  ({ type: "function_call_output", call_id: id, output: text }) as const;
const reasoning = (id: string) =>
  ({ type: "reasoning", id, summary: [], encrypted_content: `enc-${id}` }) as ResponseInputItem;

/** Conversations of every shape the reader takes: its quick items and the full reading's others. */
const CONVERSATIONS: ResponseInputItem[][] = [
  [
    { role: "user", content: "Fix the test." },
    reasoning("rs_1"),
    call("c1"),
    call("c2"),
    output("c1"),
    output("c2"),
    {
      type: "message",
      role: "assistant",
      id: "msg_1",
      status: "completed",
      content: [
        { type: "output_text", text: "Done.", annotations: [] },
        { type: "output_text", text: "Second part.", annotations: [] },
      ],
    },
  ],
  [
    { role: "developer", content: "Rules." },
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "Look." },
        { type: "input_image", image_url: "https://example.com/a.png", detail: "low" },
      ],
    },
    reasoning("rs_2"),
    { type: "custom_tool_call", call_id: "c3", name: "patch", input: "*** Begin Patch" },
    { type: "custom_tool_call_output", call_id: "c3", output: "applied" },
    {
      type: "function_call_output",
      call_id: "c9",
      output: [{ type: "input_text", text: "as parts" }],
    } as ResponseInputItem,
    {
      type: "web_search_call",
      id: "ws_1",
      status: "completed",
      action: { type: "search", query: "x" },
    } as ResponseInputItem,
    // An incomplete response's lone reasoning item, then the user's next request.
    reasoning("rs_3"),
    { role: "user", content: [{ type: "input_text", text: "Go on." }] },
    {
      type: "compaction",
      id: "cmp_1",
      encrypted_content: "opaque",
    } as unknown as ResponseInputItem,
    { role: "assistant", content: "Plain." },
  ],
  [
    // A summary leading the first item (read as two).
    { role: "user", content: `${SUMMARY_PREFIX}\nEarlier work.\n\nContinue the task.` },
    call("c1"),
    output("c1"),
    {
      role: "assistant",
      content: [{ type: "output_text", text: "Read.", annotations: [] }],
    } as unknown as ResponseInputItem,
  ],
  [
    // What the writing leaves out or mends: a reasoning item without its summary, an item of a
    // type it does not know, a compaction item with content, an assistant's input_text.
    { role: "user", content: "Go." },
    { type: "reasoning", id: "rs_9", encrypted_content: "e" } as unknown as ResponseInputItem,
    call("c7"),
    output("c7"),
    reasoning("rs_10"),
    { type: "future_item" } as unknown as ResponseInputItem,
    call("c8"),
    output("c8"),
    { type: "compaction", id: "cmp_2", content: "x" } as unknown as ResponseInputItem,
    {
      type: "message",
      role: "assistant",
      content: [{ type: "input_text", text: "odd" }],
    } as unknown as ResponseInputItem,
  ],
];

describe("compactResponsesInput's unchanged items", () => {
  it("writes the caller's items where it would write the same ones", () => {
    const reused = expectOriginsWriteTheSame(
      {
        from: (items, origins) => responsesInputMessages(items, { idPrefix: "" }, origins),
        to: writeResponsesInput,
      },
      CONVERSATIONS,
    );
    expect(reused).toBeGreaterThan(20);
  });

  it("hands back the caller's items a compaction left unchanged", async () => {
    const history = longToolLoop<ResponseInputItem>(
      { role: "user", content: "Read every file." },
      (n) => [reasoning(`rs_${n}`), call(`c${n}`), output(`c${n}`, "x".repeat(4000))],
      (turn) => [
        { role: "assistant", content: `Turn ${turn} done.` },
        { role: "user", content: `Request ${turn + 1}.` },
      ],
    );
    await expectHandedBack(history, compactResponsesInput, 60);
  });
});
