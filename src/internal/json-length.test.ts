import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkedJsonObjectLength, jsonLength } from "./json-length.js";

/** `value` with every string, key or value, replaced by as many plain characters. */
function unescaped(value: unknown): unknown {
  if (typeof value === "string") return "x".repeat(value.length);
  if (Array.isArray(value)) return value.map(unescaped);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item], index) => [
      `${index}`.padEnd(Math.max(key.length, `${index}`.length), "x"),
      unescaped(item),
    ]),
  );
}

/** What `jsonLength` counts, by JSON's grammar: each string its characters and two quotes. */
function reference(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (Array.isArray(value))
    return (
      2 + Math.max(0, value.length - 1) + value.reduce((sum, item) => sum + reference(item), 0)
    );
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    return (
      2 +
      Math.max(0, entries.length - 1) +
      entries.reduce((sum, [key, item]) => sum + key.length + 3 + reference(item), 0)
    );
  }
  return JSON.stringify(value).length;
}

describe("jsonLength", () => {
  it("is the length of JSON.stringify for any JSON value, each string counted by its characters", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonLength(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const value = { [text]: [text, null, -0, 1e21] };
        expect(jsonLength(value)).toBe(reference(value));
        expect(checkedJsonObjectLength(value)).toBe(reference(value));
      }),
    );
  });

  it("is JSON.stringify's length exactly where no string needs an escape", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const plain = unescaped(value);
        expect(jsonLength(plain)).toBe(JSON.stringify(plain).length);
        expect(reference(plain)).toBe(JSON.stringify(plain).length);
      }),
      { numRuns: 500 },
    );
  });

  it("counts a string's characters, not its escapes: a quote or a newline is one character", () => {
    expect(jsonLength('a"b\n')).toBe(6);
    expect(jsonLength({ 'k"': "\u0007\ud800" })).toBe(2 + 4 + 1 + 4);
    expect(checkedJsonObjectLength({ path: "C:\\src\\a.ts" })).toBe(
      jsonLength({ path: "C:\\src\\a.ts" }),
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
    // b: [null,null], c: null, d: the date's ISO text, e: its two characters.
    expect(jsonLength(odd)).toBe(
      JSON.stringify({ b: [null, null], c: null, d: new Date(0), e: "xx" }).length,
    );
    let deep: unknown = "x";
    for (let level = 0; level < 300; level += 1) deep = [deep];
    expect(jsonLength(deep)).toBe(JSON.stringify(deep).length);
  });
});
