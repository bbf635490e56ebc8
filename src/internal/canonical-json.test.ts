import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCanonicalJson } from "./canonical-json.js";

/** What `JSON.stringify` writes for what `JSON.parse` reads from `text`. */
const rewritten = (text: string): string => JSON.stringify(JSON.parse(text));

/** Whitespace JSON allows between tokens, mostly none. */
const space = fc.oneof(
  { weight: 12, arbitrary: fc.constant("") },
  fc.constantFrom(" ", "\n", "\t"),
);

/** One character of a string, written each way JSON allows (and as `JSON.stringify` does). */
const character = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("a", "b", "1", " ", "é", "€", "😀", "\u2028", "\u007f") },
  fc.constantFrom('\\"', "\\\\", "\\b", "\\f", "\\n", "\\r", "\\t"),
  fc.constantFrom(
    "\\/",
    "\\u0061",
    "\\u00e9",
    "\\u0001",
    "\\u001f",
    "\\ud800",
    "\\uDC00",
    "\ud800",
  ),
  fc.constantFrom("\\ud83d\\ude00", "\ud83d", "\ude00", "\\u2028", "\\u007F"),
);
const string = fc.array(character, { maxLength: 4 }).map((chars) => `"${chars.join("")}"`);
const key = fc.oneof(
  string,
  fc.constantFrom('"a"', '"b"', '"1"', '"01"', '"-1"', '"4294967295"', '"__proto__"', '""'),
);
const number = fc.constantFrom(
  ...["0", "-0", "7", "-12", "1.5", "1.0", "1e2", "1E2", "-0.0", "0.1", "100", "2e-7"],
  ...["123456789012345", "-123456789012345", "1234567890123456", "9007199254740993", "1e21"],
);

/** JSON texts written every way JSON allows: spaced or not, escaped or not, keys repeated. */
const { value } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    string,
    number,
    fc.constantFrom("true", "false", "null"),
    tie("object"),
    tie("array"),
  ),
  object: fc
    .array(fc.tuple(space, key, space, space, tie("value"), space), { maxLength: 4 })
    .map(
      (members) =>
        `{${members.map(([a, name, b, c, item, d]) => `${a}${name}${b}:${c}${item}${d}`).join(",")}}`,
    ),
  array: fc
    .array(fc.tuple(space, tie("value"), space), { maxLength: 3 })
    .map((items) => `[${items.map(([a, item, b]) => `${a}${item}${b}`).join(",")}]`),
}));
const objectText = fc
  .tuple(space, value, space)
  .map(([a, text, b]) => `${a}${text}${b}`)
  .filter((text) => {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  });

describe("isCanonicalJson: a JSON object text surely as JSON.stringify writes it", () => {
  it("says so only of texts JSON.stringify writes back as they are", () => {
    let canonical = 0;
    let other = 0;
    fc.assert(
      fc.property(objectText, (text) => {
        if (isCanonicalJson(text)) {
          canonical += 1;
          expect(rewritten(text)).toBe(text);
        } else if (rewritten(text) !== text) other += 1;
      }),
      { seed: 3_100_601, numRuns: 20_000 },
    );
    expect(canonical).toBeGreaterThan(2000);
    expect(other).toBeGreaterThan(2000);
  });

  it("says so of what JSON.stringify writes for common tool inputs", () => {
    const input = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }).filter((name) => !/^[0-9]/.test(name)),
      fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom("x", "y"), fc.integer()),
      ),
      { maxKeys: 6 },
    );
    fc.assert(
      fc.property(input, (value) => {
        expect(isCanonicalJson(JSON.stringify(value))).toBe(true);
      }),
      { seed: 3_100_607, numRuns: 3000 },
    );
  });

  it("leaves what it cannot tell surely to the comparison", () => {
    for (const text of [
      '{"a": 1}',
      ' {"a":1}',
      '{"a":1,"a":2}',
      '{"b":{"c":1,"c":1}}',
      '{"b":1,"1":2}',
      '{"a":1.5}',
      '{"a":-0}',
      '{"a":1e2}',
      '{"a":1234567890123456}',
      '{"a":"\\/"}',
      '{"a":"\\u0061"}',
      '{"a":"\ud800"}',
    ])
      expect(isCanonicalJson(text), text).toBe(false);
    expect(isCanonicalJson('{"a":{"a":1},"b":[{"a":2}]}')).toBe(true);
    expect(isCanonicalJson('{"a":"x\\"y\\\\z\\n","b":"\\\\"}')).toBe(true);
  });

  it("gives up past 32 levels and 64 keys open at once, as the comparison still answers", () => {
    const deep = `${'{"a":'.repeat(33)}1${"}".repeat(33)}`;
    expect(rewritten(deep)).toBe(deep);
    expect(isCanonicalJson(deep)).toBe(false);
    const shallow = `${'{"a":'.repeat(31)}1${"}".repeat(31)}`;
    expect(isCanonicalJson(shallow)).toBe(true);
    const wide = JSON.stringify(
      Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])),
    );
    expect(isCanonicalJson(wide)).toBe(false);
    const many = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ [`k${i}`]: i, b: [i] })));
    expect(isCanonicalJson(`{"a":${many}}`)).toBe(true);
  });
});
