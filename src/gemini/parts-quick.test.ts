import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ValidationIssue } from "../core/errors.js";
import type { ContentBlock, ToolUseBlock } from "../core/message.js";
import { copyJson } from "../internal/json-value.js";
import { partOf } from "./contents-out.js";
import { type PartContext, partBlockInFull } from "./parts-in.js";
import { quickPartBlock, quickPartOf } from "./parts-quick.js";

/** Keys in order, all the way down: `toEqual` alone does not compare their order. */
function keyOrder(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(keyOrder);
  return Object.keys(value).map((key) => [key, keyOrder((value as Record<string, unknown>)[key])]);
}

/** A context that records what the full reading asked of it. */
function context(): PartContext & { asked: number } {
  const issues: ValidationIssue[] = [];
  return {
    issues,
    path: [0, "parts", 0],
    asked: 0,
    callId(name) {
      this.asked += 1;
      return `generated-${name}`;
    },
    answerId(name) {
      this.asked += 1;
      return `answered-${name}`;
    },
  };
}

/** Values a field of a part may hold: the quick reading's shapes, and near misses. */
const field = fc.oneof(
  fc.constantFrom("", "x", "read_file", 0, -0, true, null, undefined, [], {}, Number.NaN),
  fc.string({ maxLength: 6 }),
  fc.dictionary(fc.constantFrom("path", "n", "__proto__"), fc.oneof(fc.string(), fc.integer())),
);

function objectOf(keys: readonly string[]) {
  return fc
    .record(Object.fromEntries(keys.map((key) => [key, field])), { requiredKeys: [] })
    .chain((base) =>
      fc.oneof(
        fc.constant(base),
        fc.record({ extra: field }).map((more) => ({ ...base, ...more })),
      ),
    );
}

const response = fc.oneof(
  fc.record({ output: field }),
  fc.record({ error: field }),
  objectOf(["output", "error"]),
  field,
);

const part = fc.oneof(
  objectOf(["text"]),
  objectOf(["text", "thought"]),
  fc.record({ functionCall: fc.oneof(objectOf(["id", "name", "args"]), field) }),
  fc.record({ functionCall: objectOf(["id", "name", "args"]), thoughtSignature: field }),
  fc.record({
    functionResponse: fc.oneof(
      fc.record({ id: field, name: field, response }),
      objectOf(["id", "name", "response", "parts"]),
    ),
  }),
  objectOf(["inlineData"]),
);

describe("quickPartBlock: the common Gemini parts read without a copy of the whole", () => {
  it("reads a part as the full reading does, or leaves it to that reading", () => {
    fc.assert(
      fc.property(part, (value) => {
        const quick = quickPartBlock(value as Record<string, unknown>);
        if (quick === undefined) return;
        const full = context();
        const expected = partBlockInFull(full, value as Record<string, unknown>);
        expect(full.issues).toEqual([]);
        expect(full.asked).toBe(0);
        expect(keyOrder(quick)).toEqual(keyOrder(expected));
      }),
      { seed: 3_100_271, numRuns: 4000 },
    );
  });

  it("reads the common parts, copying a call's args", () => {
    const args = { path: "a.ts" };
    const call = quickPartBlock({ functionCall: { id: "c1", name: "read", args } });
    expect(call).toEqual({ type: "tool_use", id: "c1", name: "read", input: args });
    expect(call?.type === "tool_use" && call.input).not.toBe(args);
    expect(quickPartBlock({ text: "hi" })).toEqual({ type: "text", text: "hi" });
    expect(
      quickPartBlock({ functionResponse: { id: "c1", name: "read", response: { error: "no" } } }),
    ).toEqual({
      type: "tool_result",
      toolUseId: "c1",
      content: "no",
      isError: true,
      extra: { gemini: { name: "read" } },
    });
    expect(quickPartBlock({ text: "hi", thought: true })).toBeUndefined();
    expect(quickPartBlock({ functionCall: { name: "read", args } })).toBeUndefined();
  });
});

/** Gemini fields a block may keep: none, the quick reading's, and others. */
const geminiExtra = fc.oneof(
  fc.constant(undefined),
  fc.constant({ gemini: { noId: true } }),
  fc.record({ gemini: fc.record({ name: field }) }),
  fc.record({ gemini: objectOf(["name", "noId", "noResponse", "part", "response"]) }),
  fc.record({ other: field }),
  fc.record({ gemini: field }),
);

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string(), extra: geminiExtra }),
  fc.record({
    type: fc.constant("tool_use"),
    id: fc.constantFrom("c1", "c2"),
    name: fc.constantFrom("read", "grep"),
    input: fc.dictionary(fc.constantFrom("path", "n"), fc.oneof(fc.string(), fc.integer())),
    extra: geminiExtra,
  }),
  fc.record({
    type: fc.constant("tool_result"),
    toolUseId: fc.constantFrom("c1", "c2", "c3"),
    content: fc.oneof(fc.string(), fc.constant([{ type: "text", text: "x" }])),
    isError: fc.boolean(),
    extra: geminiExtra,
  }),
) as fc.Arbitrary<ContentBlock>;

/** A block as the conversion makes it: `extra` absent rather than `undefined`. */
function tidy(value: ContentBlock): ContentBlock {
  const out = { ...value } as Record<string, unknown>;
  if (out["extra"] === undefined) delete out["extra"];
  return out as unknown as ContentBlock;
}

describe("quickPartOf: the common blocks written without the spreads and the copy after them", () => {
  it("writes a block as partOf and the copy do, or leaves it to them", () => {
    fc.assert(
      fc.property(fc.array(block.map(tidy), { minLength: 1, maxLength: 4 }), (blocks) => {
        const calls = new Map<string, ToolUseBlock>();
        for (const each of blocks) {
          if (each.type === "tool_use") calls.set(each.id, each);
          const quick = quickPartOf(each, calls);
          if (quick === undefined) continue;
          expect(keyOrder(quick)).toEqual(keyOrder(copyJson(partOf(each, calls))));
        }
      }),
      { seed: 3_100_313, numRuns: 3000 },
    );
  });
});
