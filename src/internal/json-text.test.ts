import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStringifyOf } from "./json-text.js";

/** Texts `JSON.parse` reads: JSON as `JSON.stringify` writes it, spaced, and written by hand. */
const text = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
  fc.jsonValue().map((value) => `${JSON.stringify(value)}\n`),
  fc.json(),
  fc
    .dictionary(
      fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("1", "__proto__", "toJSON", "a")),
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 4 }),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(-0, 2 ** 53, 1e21, 0.1, true, null),
      ),
    )
    .map((value) => JSON.stringify(value)),
  fc.constantFrom(
    '{"a":1.0}',
    '{"a":1,"a":2}',
    '{"b":1,"1":0}',
    '{"a":-0}',
    '{"a":1e2}',
    '{"a":"\\u0041"}',
    '{"a":"\\/"}',
    '{"a":[1,2 ]}',
    '{"a":1} ',
    " 1",
    '{"__proto__":{"x":1}}',
    "[]",
    "{}",
    '""',
  ),
);

describe("isStringifyOf: whether a text is its value's JSON.stringify, without writing it", () => {
  it("answers as comparing with JSON.stringify does, or leaves it to that", () => {
    let answered = 0;
    fc.assert(
      fc.property(text, (raw) => {
        const value: unknown = JSON.parse(raw);
        const answer = isStringifyOf(value, raw);
        if (answer === undefined) return;
        answered += 1;
        expect(answer).toBe(JSON.stringify(value) === raw);
      }),
      { seed: 3_100_457, numRuns: 6000 },
    );
    expect(answered).toBeGreaterThan(3000);
  });

  it("tells the common arguments apart at a glance", () => {
    const raw = '{"pattern":"handler0","path":"src/module-0","limit":20,"all":true,"n":null}';
    expect(isStringifyOf(JSON.parse(raw), raw)).toBe(true);
    expect(isStringifyOf(JSON.parse('{"a": 1}'), '{"a": 1}')).toBe(false);
    expect(isStringifyOf(JSON.parse('{"a":[1,{"b":-12}]}'), '{"a":[1,{"b":-12}]}')).toBe(true);
    expect(isStringifyOf(JSON.parse('{"a":1.5}'), '{"a":1.5}')).toBeUndefined();
    expect(isStringifyOf(JSON.parse('{"a":"x\\ny"}'), '{"a":"x\\ny"}')).toBeUndefined();
  });

  it("leaves a value with a toJSON to JSON.stringify", () => {
    const value = { a: 1, toJSON: () => "x" };
    expect(isStringifyOf(value, '{"a":1}')).toBeUndefined();
  });

  it("stops at 64 levels, however deep the value", () => {
    const raw = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    expect(isStringifyOf(JSON.parse(raw), raw)).toBeUndefined();
  });
});
