import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { seed } from "../../test/properties/invariants.js";
import { oneChanged, replacementArbitrary } from "../../test/support/mutation.js";
import { keyOrder, objectsIn } from "../../test/support/quick-path.js";
import type { ValidationIssue } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import { MessagesSchema } from "../core/schemas.js";
import { contentFromWire } from "./blocks.js";
import { QuickMessageReader } from "./quick-message-blocks.js";
import { toAnthropicMessages } from "./request.js";
import { fromAnthropicMessages } from "./turns.js";
import { parseWireMessage } from "./wire-schemas.js";

const PLAUSIBLE: readonly unknown[] = [
  "",
  "x",
  0,
  true,
  false,
  null,
  undefined,
  [],
  {},
  "system",
  "tool_result",
  "text",
  { type: "text", text: "t" },
  [{ type: "text", text: "t" }],
  { type: "search_result", source: "s" },
  Object.create(null),
];

const replacements = replacementArbitrary(PLAUSIBLE);

/** What the schemas make of a param: its role and blocks, or `undefined` when they refuse it. */
function bySchemas(param: unknown): { role: string; blocks: ContentBlock[] } | undefined {
  const issues: ValidationIssue[] = [];
  const message = parseWireMessage(param, ["messages", 0], issues);
  if (message === undefined || message.role === "system") return undefined;
  return { role: message.role, blocks: contentFromWire(message.content) };
}

/** Holds the quick reading of `param` to the schemas' (key order too), sharing nothing; whether it took it. */
function agrees(reader: QuickMessageReader, param: unknown): boolean {
  const quick = reader.read(param);
  if (quick === undefined) return false;
  const expected = bySchemas(param);
  expect(expected).toBeDefined();
  expect(reader.role).toBe(expected?.role);
  expect(keyOrder(quick)).toEqual(keyOrder(expected?.blocks));
  const theirs = objectsIn(param);
  for (const ours of objectsIn(quick)) expect(theirs.has(ours)).toBe(false);
  return true;
}

/** Values a block's field may hold: the quick reading's shapes, and near misses. */
const field = fc.oneof(
  fc.constantFrom("", "x", "c1", 0, true, false, null, undefined, [], {}, { path: "a" }),
  fc.constantFrom([{ type: "text", text: "x" }], [{ type: "text", text: "x", extra: 1 }]),
  fc.constantFrom([{ text: "x", type: "text" }], [{ type: "image" }], Object.create(null)),
  fc.constantFrom(Number.NaN, () => 1, new Date(0)),
);

/** Each quick shape, valid. */
const SHAPES: readonly Record<string, unknown>[] = [
  { type: "text", text: "a" },
  { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
  { type: "tool_result", tool_use_id: "c1", content: "ok", is_error: true },
  { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "ok" }] },
  { type: "thinking", thinking: "t", signature: "s" },
  { type: "redacted_thinking", data: "d" },
];
const KEYS = ["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error", "data"];

/** Blocks near the quick shapes: a field missing, of another value, one more; keys shuffled. */
const nearBlock = fc
  .tuple(
    fc.constantFrom(...SHAPES),
    fc.option(fc.constantFrom(...KEYS)),
    fc.option(fc.tuple(fc.constantFrom(...KEYS, "cache_control", "citations"), field)),
  )
  .map(([shape, dropped, changed]) => {
    const block = { ...shape };
    if (dropped !== null) delete block[dropped];
    if (changed !== null) block[changed[0]] = changed[1];
    return block;
  })
  .chain((block) =>
    fc
      .shuffledSubarray(Object.keys(block), { minLength: Object.keys(block).length })
      .map((keys) => Object.fromEntries(keys.map((key) => [key, block[key]]))),
  );

describe("QuickMessageReader: an Anthropic message param read straight into our blocks", () => {
  it("reads what the schemas accept, as they read it (key order), sharing nothing", () => {
    let quick = 0;
    let refused = 0;
    const reader = new QuickMessageReader();
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        (messages: Message[], pick, replacement) => {
          const params = toAnthropicMessages(messages) as unknown[];
          const changed = oneChanged(params, pick, replacement) as unknown[];
          for (const param of [...params, ...changed]) {
            if (bySchemas(param) === undefined) refused += 1;
            if (agrees(reader, param)) quick += 1;
          }
        },
      ),
      { seed: seed(20_261_211), numRuns: 300 },
    );
    expect(quick).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(20);
  });

  it("reads blocks near its shapes (fields missing, mistyped, extra, reordered) as the schemas do", () => {
    let quick = 0;
    const reader = new QuickMessageReader();
    fc.assert(
      fc.property(
        fc.constantFrom("user", "assistant"),
        fc.array(nearBlock, { minLength: 1, maxLength: 3 }),
        (role, content) => {
          if (agrees(reader, { role, content })) quick += 1;
        },
      ),
      { seed: seed(20_261_212), numRuns: 3000 },
    );
    expect(quick).toBeGreaterThan(300);
  });

  it("takes the common shapes", () => {
    const reader = new QuickMessageReader();
    const blocks = [
      { type: "text", text: "a" },
      { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
      { type: "thinking", thinking: "t", signature: "s" },
      { type: "redacted_thinking", data: "d" },
    ];
    for (const block of blocks)
      expect(agrees(reader, { role: "assistant", content: [block] })).toBe(true);
    const results = [
      { type: "tool_result", tool_use_id: "c1", content: "ok" },
      { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "ok" }] },
      { type: "tool_result", tool_use_id: "c1", is_error: true },
      { type: "tool_result", tool_use_id: "c1", content: "", is_error: false },
      {
        type: "tool_result",
        tool_use_id: "c1",
        content: "ok",
        cache_control: { type: "ephemeral" },
      },
      { type: "image", source: { type: "url", url: "https://x" } },
      { type: "search_result", source: "s" },
    ];
    for (const block of results)
      expect(agrees(reader, { role: "user", content: [block] })).toBe(true);
    expect(agrees(reader, { role: "user", content: "hi" })).toBe(true);
    expect(reader.role).toBe("user");
  });

  it("leaves the rest to the schemas", () => {
    const reader = new QuickMessageReader();
    const refused = [
      { role: "system", content: "be brief" },
      { role: "user", content: [] },
      { role: "user", content: "x", name: "n" },
      { role: "user", content: [{ type: "tool_use", id: "", name: "n", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", is_error: 1 }] },
      { role: "user", content: [{ type: "text", text: "a", more: undefined }] },
      { role: "user", content: [JSON.parse('{"type":"text","text":"a","__proto__":null}')] },
    ];
    for (const param of refused) expect(reader.read(param)).toBeUndefined();
  });

  it("reads only enumerable own fields, each once", () => {
    const reader = new QuickMessageReader();
    // A field the schemas do not see (not enumerable) is not read either.
    const hidden = { type: "tool_result", content: "ok" };
    Object.defineProperty(hidden, "tool_use_id", { value: "c1", enumerable: false });
    expect(reader.read({ role: "user", content: [hidden] })).toBeUndefined();
    expect(bySchemas({ role: "user", content: [hidden] })).toBeUndefined();
    const inherited = Object.assign(Object.create({ text: "x" }), { type: "text" });
    expect(reader.read({ role: "user", content: [inherited] })).toBeUndefined();
    let reads = 0;
    const block = { type: "text" } as Record<string, unknown>;
    Object.defineProperty(block, "text", {
      enumerable: true,
      get: () => {
        reads += 1;
        return reads === 1 ? "first" : 7;
      },
    });
    expect(reader.read({ role: "user", content: [block] })).toEqual([
      { type: "text", text: "first" },
    ]);
    expect(reads).toBe(1);
  });
});

/** A conversation's params, and a copy with one value replaced. */
const conversations = fc
  .tuple(trajectoryArbitrary(), fc.nat(), replacements)
  .map(([messages, pick, replacement]) => {
    const params = toAnthropicMessages(messages) as unknown[];
    return [params, oneChanged(params, pick, replacement) as unknown[]] as const;
  });

describe("fromAnthropicMessages without a second check of what it built", () => {
  it("builds only valid messages, and refuses just what the schemas refuse, naming the same issues", () => {
    fc.assert(
      fc.property(conversations, ([params, changed]) => {
        for (const each of [params, changed]) {
          const issues: ValidationIssue[] = [];
          for (const [index, param] of each.entries())
            parseWireMessage(param, ["messages", index], issues);
          let messages: Message[] | undefined;
          try {
            messages = fromAnthropicMessages(each, { sessionId: "s", clock: () => new Date(0) });
          } catch (error) {
            const thrown = (error as { issues: ValidationIssue[] }).issues;
            // The issues the schemas name, and the rule about a leading system message.
            expect(thrown.slice(0, issues.length)).toEqual(issues);
            expect(thrown.length - issues.length).toBeLessThanOrEqual(1);
            continue;
          }
          expect(issues).toEqual([]);
          expect(z.safeParse(MessagesSchema, messages).success).toBe(true);
        }
      }),
      { seed: seed(20_261_213), numRuns: 200 },
    );
  });

  it("still checks what its options make: generateId's ids and the clock's date", () => {
    const params = [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ];
    const same = () => "id";
    expect(() => fromAnthropicMessages(params, { generateId: same })).toThrow(/generateId/);
    expect(() => fromAnthropicMessages(params, { generateId: () => "" })).toThrow(/generateId/);
    const bad = { clock: () => new Date(Number.NaN) };
    expect(() => fromAnthropicMessages(params, bad)).toThrow(/clock/);
    const notADate = { clock: () => "2026-01-01" as unknown as Date };
    expect(() => fromAnthropicMessages(params, notADate)).toThrow(/clock/);
    let count = 0;
    const ids = fromAnthropicMessages(params, { generateId: () => `m${++count}` });
    expect(ids.map((message) => message.id)).toEqual(["m1", "m2"]);
  });

  it("refuses turn numbers past the safe integers, naming the option that made them", () => {
    const params = [
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ];
    const last = { firstTurnNumber: Number.MAX_SAFE_INTEGER - 1 };
    expect(fromAnthropicMessages(params, last).map((message) => message.turnId.number)).toEqual([
      Number.MAX_SAFE_INTEGER - 1,
      Number.MAX_SAFE_INTEGER,
    ]);
    const past = { firstTurnNumber: Number.MAX_SAFE_INTEGER };
    expect(() => fromAnthropicMessages(params, past)).toThrow(
      /fromAnthropicMessages options: firstTurnNumber/,
    );
  });
});
