// The AI SDK parts' reading (review F09, items 4 and 5): a caller's field named as the library's
// bookkeeping is refused, not read as a mark; `mediaType: "image/*"` and fields the AI SDK does
// not define are kept, as the AI SDK keeps them (its prompt schemas check parts, never strip).
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { ContentBlock, ImageBlock } from "../core/message.js";
import { fromModelMessages, toModelMessages } from "./model-messages.js";

const roundTrip = (messages: unknown[]) => toModelMessages(fromModelMessages(messages));
const userParts = (...content: Record<string, unknown>[]) => [{ role: "user", content }];
/** The first block of the first message (not an opaque one, in these tests). */
const firstBlock = (messages: unknown[]) =>
  fromModelMessages(messages)[0]!.content[0] as Exclude<ContentBlock, { type: "opaque" }>;

function issuesOf(run: () => unknown): { path: (string | number)[]; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  throw new Error("no ValidationError");
}

describe("a part's field named as the library's bookkeeping", () => {
  it("is refused, named, rather than read as the adapter's mark", () => {
    const messages = userParts({
      type: "file",
      data: "AAAA",
      mediaType: "application/pdf",
      "aiSdk:data": "bytes",
    });
    expect(issuesOf(() => fromModelMessages(messages))).toEqual([
      { path: [0, "content", 0, "aiSdk:data"], message: expect.stringMatching(/marks/) },
    ]);
  });

  it("is refused under another adapter's name too", () => {
    const messages = [
      { role: "assistant", content: [{ type: "tool-approval-request", "openai:item": {} }] },
    ];
    expect(issuesOf(() => fromModelMessages(messages)).map((issue) => issue.path)).toEqual([
      [0, "content", 0, "openai:item"],
    ]);
  });

  it("leaves a file part's own data as it was", () => {
    const messages = userParts({ type: "file", data: "AAAA", mediaType: "application/pdf" });
    expect(roundTrip(messages)).toEqual(messages);
  });
});

describe("an image part's media type", () => {
  it('keeps "image/*" given as the media type', () => {
    const messages = userParts({ type: "image", image: "AAAA", mediaType: "image/*" });
    expect(roundTrip(messages)).toEqual(messages);
  });

  it("still leaves out a media type the part did not have", () => {
    const messages = userParts({ type: "image", image: "AAAA" });
    expect(roundTrip(messages)).toEqual(messages);
    expect((firstBlock(messages) as ImageBlock).source).toMatchObject({ mediaType: "image/*" });
  });
});

describe("fields the AI SDK does not define, on a part", () => {
  // Its providers never send them: the conversion drops them, as a JSON schema of the part would
  // (the stateless paths hand unchanged parts back as they came, fields and all).
  it("are dropped", () => {
    expect(firstBlock(userParts({ type: "text", text: "x", foo: 1 }))).toEqual({
      type: "text",
      text: "x",
    });
  });
});

describe("a tool call without input", () => {
  it("comes back without input", () => {
    const messages = [
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "t" }] },
    ] as unknown as ModelMessage[];
    expect(roundTrip(messages)).toStrictEqual(messages);
  });
});
