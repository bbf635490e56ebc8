import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonLength } from "./json-length.js";

describe("jsonLength", () => {
  it("is the length of JSON.stringify for any JSON value, escapes and lone surrogates included", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonLength(value)).toBe(JSON.stringify(value).length);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(jsonLength({ [text]: [text, null, -0, 1e21] })).toBe(
          JSON.stringify({ [text]: [text, null, -0, 1e21] }).length,
        );
      }),
    );
  });

  it("measures what JSON.stringify leaves out or rewrites the same way", () => {
    const odd = {
      a: undefined,
      b: [undefined, () => 1],
      c: Number.NaN,
      d: new Date(0),
      e: "\u0007\ud800",
    };
    expect(jsonLength(odd)).toBe(JSON.stringify(odd).length);
    let deep: unknown = "x";
    for (let level = 0; level < 300; level += 1) deep = [deep];
    expect(jsonLength(deep)).toBe(JSON.stringify(deep).length);
  });
});
