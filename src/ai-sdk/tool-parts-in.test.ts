import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { refusalIssues as issuesOf } from "../../test/support/refusals.js";
import { ValidationError } from "../core/errors.js";
import type { ToolUseBlock } from "../core/message.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { fromModelMessages, toModelMessages } from "./model-messages.js";

function callAndResult(call: object, output: object = { type: "text", value: "x" }) {
  return [
    { role: "user", content: "read a and b" },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "t1", toolName: "read", ...call }],
    },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "t1", toolName: "read", output }],
    },
  ] as ModelMessage[];
}

describe("a tool call's input holding undefined array items", () => {
  const input = { paths: ["a", undefined], nested: { list: [[undefined], 1] }, gone: undefined };
  const written = { paths: ["a", null], nested: { list: [[null], 1] } };

  it("reads each as null, as JSON writes it, and gives null back in place", () => {
    for (const call of [{ input }, { input, providerOptions: { anthropic: { cache: 1 } } }]) {
      const ours = fromModelMessages(callAndResult(call));
      expect((ours[1]!.content[0] as ToolUseBlock).input).toEqual(written);
      const back = toModelMessages(ours)[1]!.content as { input?: unknown }[];
      expect(back[0]?.input).toEqual(written);
    }
    // The caller's input is left as it was.
    expect(input.paths).toEqual(["a", undefined]);
    const items: number[] = new Array(3);
    items[0] = 1;
    items[2] = 3;
    const sparse = fromModelMessages(callAndResult({ input: { items } }));
    expect((sparse[1]!.content[0] as ToolUseBlock).input).toEqual({ items: [1, null, 3] });
  });

  it("no longer fails compactModelMessages with 'input.paths[1]: must be a JSON value'", async () => {
    const compacted = await compactModelMessages(callAndResult({ input }), {
      contextLimit: 100_000,
    });
    expect(compacted.messages).toHaveLength(3);
  });

  it("still refuses what JSON cannot hold, naming it", () => {
    const issues = issuesOf(() =>
      fromModelMessages(callAndResult({ input: { paths: [undefined, Number.NaN] } })),
    );
    expect(issues).toEqual([
      { path: [1, "content", 0, "input", "paths", 1], message: "must be a finite number" },
    ]);
    const circular: Record<string, unknown> = { list: [undefined] };
    circular["self"] = circular;
    expect(() => fromModelMessages(callAndResult({ input: circular }))).toThrow(ValidationError);
  });
});

describe("a tool output's media part", () => {
  const media = (part: object) =>
    callAndResult({ input: {} }, { type: "content", value: [{ type: "media", ...part }] });

  it("refuses a media type that is not a string, naming it", () => {
    for (const mediaType of [Object.create(null), 5, undefined, { toString: () => "image/png" }]) {
      const issues = issuesOf(() => fromModelMessages(media({ data: "AAAA", mediaType })));
      expect(issues).toEqual([
        {
          path: [2, "content", 0, "output", "value", 0, "mediaType"],
          message: "must be a non-empty string",
        },
      ]);
    }
  });

  it("reads an image as one and carries other media whole", () => {
    const [image] = fromModelMessages(media({ data: "AAAA", mediaType: "image/png" }))[2]!
      .content as { content: unknown[] }[];
    expect(image?.content[0]).toMatchObject({ type: "image", source: { mediaType: "image/png" } });
    const [audio] = fromModelMessages(media({ data: "AAAA", mediaType: "audio/wav" }))[2]!
      .content as { content: unknown[] }[];
    expect(audio?.content[0]).toMatchObject({ type: "opaque" });
  });
});
