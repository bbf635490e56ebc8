import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelJsonLength } from "../../test/support/json-length-model.js";
import { jsonLength } from "./json-length.js";

describe("jsonLength", () => {
  it("is the length of JSON.stringify for any JSON value, less the escapes of strings of up to 64 characters", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonLength(value)).toBe(modelJsonLength(value));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        const value = { [text]: [text, null, -0, 1e21] };
        expect(jsonLength(value)).toBe(modelJsonLength(value));
        // A long string, escapes and lone surrogates included, as JSON.stringify writes it.
        const long = text.padEnd(65, "x");
        expect(jsonLength([long])).toBe(JSON.stringify([long]).length);
      }),
    );
    // The model is no copy of the rule: a short string's escapes are what it leaves out.
    expect(jsonLength({ a: 'say "hi"\n' })).toBe(JSON.stringify({ a: 'say "hi"\n' }).length - 3);
  });

  it("measures what JSON.stringify leaves out or rewrites the same way", () => {
    const odd = {
      a: undefined,
      b: [undefined, () => 1],
      c: Number.NaN,
      d: new Date(0),
      e: "\u0007\ud800",
    };
    expect(jsonLength(odd)).toBe(modelJsonLength(odd));
    expect(jsonLength({ ...odd, e: odd.e.repeat(40) })).toBe(
      JSON.stringify({ ...odd, e: odd.e.repeat(40) }).length,
    );
    let deep: unknown = "x";
    for (let level = 0; level < 300; level += 1) deep = [deep];
    expect(jsonLength(deep)).toBe(JSON.stringify(deep).length);
  });
});
