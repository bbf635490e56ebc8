import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flatArguments } from "./flat-arguments.js";

/** Keys in order, all the way down: `toEqual` alone does not compare their order. */
function keyOrder(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(keyOrder);
  return Object.keys(value).map((key) => [key, keyOrder((value as Record<string, unknown>)[key])]);
}

/** Keys and values near the flat reading's edges. */
const key = fc.oneof(
  fc.constantFrom("path", "", "1", "01", "a1", "-1", "__proto__", "constructor", "é", "a b"),
  fc.string({ maxLength: 5 }),
);
const value = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom("", "a\\b", 'a"b', "\n", "é", "\u{1f600}", "\ud800", "\u007f"),
  fc.integer(),
  fc.constantFrom(0, -0, 1e15, 999_999_999_999_999, -999_999_999_999_999, 1.5, 1e21, 2 ** 53),
  fc.boolean(),
  fc.constant(null),
  fc.constant({ nested: 1 }),
  fc.constant([1]),
);

/** JSON texts of flat objects: as `JSON.stringify` writes them, and near misses. */
const text = fc.oneof(
  fc.dictionary(key, value, { maxKeys: 4 }).map((object) => JSON.stringify(object)),
  fc
    .dictionary(key, value, { maxKeys: 4 })
    .chain((object) =>
      fc.constantFrom(
        JSON.stringify(object, null, 1),
        JSON.stringify(object).replace(":", ": "),
        JSON.stringify(object).replace(/\d/, "0$&"),
        JSON.stringify(object).replace("}", ',"path":1}'),
        `${JSON.stringify(object)} `,
        JSON.stringify(object).slice(0, -1),
      ),
    ),
  fc.constantFrom(
    "{}",
    '{"a":1,"a":2}',
    '{"b":1,"2":2}',
    '{"a":-0}',
    '{"a":1.0}',
    '{"a":1e2}',
    '{"a":-}',
    '{"a":tru}',
    '{"a":"b"',
    "[1]",
    "",
    "{",
    "}",
    '{"a":1}x',
    '{"__proto__":1}',
  ),
);

describe("flatArguments: a flat JSON object written as JSON.stringify writes it, read in one pass", () => {
  it("reads what JSON.parse reads where the text needs no keeping, and nothing else", () => {
    let read = 0;
    fc.assert(
      fc.property(text, (raw) => {
        const flat = flatArguments(raw);
        if (flat === undefined) return;
        read += 1;
        // Against JSON itself: the text is the input's JSON exactly (needs no keeping).
        const input: unknown = JSON.parse(raw);
        expect(JSON.stringify(input)).toBe(raw);
        expect(keyOrder(flat)).toEqual(keyOrder(input));
        expect(Object.getPrototypeOf(flat)).toBe(Object.prototype);
      }),
      { seed: 5_900_301, numRuns: 5000 },
    );
    expect(read).toBeGreaterThan(500);
  });

  it("takes a model's usual arguments, and leaves the rest to the full reading", () => {
    expect(flatArguments('{"path":"src/a.ts","limit":20,"all":true,"to":null}')).toEqual({
      path: "src/a.ts",
      limit: 20,
      all: true,
      to: null,
    });
    expect(flatArguments("{}")).toEqual({});
    expect(flatArguments('{"n":-12}')).toEqual({ n: -12 });
    for (const raw of [
      '{"path": "a.ts"}',
      '{"a":{"b":1}}',
      '{"a":"\\n"}',
      '{"a":1.5}',
      '{"a":1234567890123456}',
      '{"1":1}',
      '{"a":1,"a":2}',
      '{"__proto__":{}}',
      '{"a":-0}',
      '{"a":01}',
    ])
      expect(flatArguments(raw)).toBeUndefined();
  });
});
