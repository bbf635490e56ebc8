import type { Content } from "@google/genai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyOrder, objectsIn, ourMessages } from "../../test/support/quick-path.js";
import {
  GEMINI_CONTENT_MARKS_KEY,
  geminiContentGroups,
  geminiContentMarks,
  objectField,
} from "../core/gemini-contents.js";
import { type ContentBlock, type Message, SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { copyJson } from "../internal/json-value.js";
import { spreadWith } from "../internal/plain-object.js";
import { partOf, toGeminiContents } from "./contents-out.js";

/**
 * The contents as `geminiContentGroups` groups the messages, each part written by `partOf` and
 * copied: what {@link toGeminiContents} wrote before it grouped in one pass, and must still write.
 */
function byGroups(messages: readonly Message[]): Content[] {
  const calls = new Map<string, Extract<ContentBlock, { type: "tool_use" }>>();
  return geminiContentGroups(messages).map((group) => {
    const parts = group.entries.map(({ block }) => {
      if (block.type === "tool_use") calls.set(block.id, block);
      const part = partOf(block, calls);
      return copyJson(part) ?? structuredClone(part);
    });
    const marks = geminiContentMarks(group.entries[0]!.block);
    const content: Record<string, unknown> = spreadWith(objectField(marks, "fields") ?? {}, {});
    if (marks?.["noRole"] !== true) content["role"] = group.role;
    content["parts"] = parts;
    return content as Content;
  });
}

/** A `Content`'s marks a message's first block may keep: none, each mark, and odd values. */
const marks = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  fc.record(
    {
      separate: fc.constantFrom(true, false, 1),
      noRole: fc.constantFrom(true, false),
      fields: fc.oneof(
        fc.dictionary(
          fc.constantFrom("role", "parts", "__proto__", "extra"),
          fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
        ),
        fc.constantFrom(null, "x", [1]),
      ),
    },
    { requiredKeys: [] },
  ),
);

/** The Gemini fields of a block: none, those the quick writer reads, and others. */
const gemini = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  fc.record(
    { name: fc.constantFrom("read", 1), noId: fc.boolean(), part: fc.constant({ x: 1 }) },
    { requiredKeys: [] },
  ),
);

/** A block (calls and results of the ids `ids`): the kinds the writer sends, the kinds it leaves out, and a system message. */
const blockOf = (ids: readonly string[]): fc.Arbitrary<ContentBlock> =>
  fc.oneof(
    fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 4 }) }),
    fc.record({
      type: fc.constant("tool_use"),
      id: fc.constantFrom(...ids),
      name: fc.constantFrom("read", "grep"),
      input: fc.dictionary(fc.constantFrom("path", "n"), fc.string({ maxLength: 3 })),
    }),
    fc.record({
      type: fc.constant("tool_result"),
      toolUseId: fc.constantFrom(...ids, "c0"),
      content: fc.oneof(fc.string({ maxLength: 4 }), fc.constant([{ type: "text", text: "x" }])),
      isError: fc.boolean(),
    }),
    fc.record({
      type: fc.constant("thinking"),
      thinking: fc.constant("hm"),
      signature: fc.string(),
    }),
    fc.record({ type: fc.constant("opaque"), block: fc.constant({ thought: true, text: "t" }) }),
    fc.record({ type: fc.constant("opaque"), block: fc.constant({ type: "other" }) }),
    fc.constant({
      type: "opaque",
      block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "Be brief." } },
    }),
  ) as fc.Arbitrary<ContentBlock>;

/** `block` with Gemini fields and, when it opens a message, a `Content`'s marks. */
function withFields(value: ContentBlock, fields: unknown, contentMarks: unknown): ContentBlock {
  if (value.type === "opaque")
    return contentMarks === undefined
      ? value
      : { ...value, block: { ...value.block, [GEMINI_CONTENT_MARKS_KEY]: contentMarks as never } };
  const kept = {
    ...(fields ?? {}),
    ...(contentMarks === undefined ? {} : { content: contentMarks }),
  };
  return Object.keys(kept).length === 0 ? value : { ...value, extra: { gemini: kept as never } };
}

const messageOf = (ids: readonly string[]) =>
  fc
    .record({
      role: fc.constantFrom("user", "assistant"),
      content: fc.array(fc.tuple(blockOf(ids), gemini), { minLength: 1, maxLength: 3 }),
      marks,
    })
    .map(
      ({ role, content, marks }) =>
        ({
          role,
          content: content.map(([each, fields], at) =>
            withFields(each, fields, at === 0 ? marks : undefined),
          ),
        }) as const,
    );

const message = messageOf(["c1", "c2"]);
/** Calls of many ids: a result's call is often further back than the last few. */
const manyIds = Array.from({ length: 12 }, (_, index) => `c${index + 1}`);

describe("toGeminiContents: the contents geminiContentGroups makes, written in one pass", () => {
  it("writes the contents the groups and partOf make, keys in order", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (specs) => {
        const messages = ourMessages(specs);
        expect(keyOrder(toGeminiContents(messages))).toEqual(keyOrder(byGroups(messages)));
      }),
      { seed: 3_100_419, numRuns: 3000 },
    );
  });

  it("finds each result's call however far back, the latest of its id", () => {
    fc.assert(
      fc.property(fc.array(messageOf(manyIds), { minLength: 10, maxLength: 40 }), (specs) => {
        const messages = ourMessages(specs);
        expect(keyOrder(toGeminiContents(messages))).toEqual(keyOrder(byGroups(messages)));
      }),
      { seed: 3_100_423, numRuns: 600 },
    );
    const call = (id: string, name = "read"): ContentBlock => ({
      type: "tool_use",
      id,
      name,
      input: {},
    });
    const result = (id: string): ContentBlock => ({
      type: "tool_result",
      toolUseId: id,
      content: "ok",
      isError: false,
    });
    const calls = (from: number) =>
      Array.from({ length: 9 }, (_, index) => call(`c${from + index}`));
    // A miss makes the map of all calls; a call after it is found in that map.
    const messages = ourMessages([
      { role: "assistant", content: calls(1) },
      { role: "user", content: [result("missing")] },
      { role: "assistant", content: [call("late", "grep"), ...calls(20)] },
      { role: "user", content: [result("late"), result("c1")] },
    ]);
    expect(keyOrder(toGeminiContents(messages))).toEqual(keyOrder(byGroups(messages)));
  });

  it("shares no object with the messages", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (specs) => {
        const messages = ourMessages(specs);
        const theirs = objectsIn(messages);
        for (const each of objectsIn(toGeminiContents(messages)))
          expect(theirs.has(each)).toBe(false);
      }),
      { seed: 3_100_421, numRuns: 500 },
    );
  });
});
