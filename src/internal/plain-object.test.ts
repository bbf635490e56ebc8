import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spreadWith } from "./plain-object.js";

describe("spreadWith", () => {
  it("makes what a spread makes of objects of string keys: same fields, same order", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (base, additions) => {
          const made = spreadWith(base, additions);
          const spread = { ...base, ...additions };
          expect(made).toEqual(spread);
          expect(Object.keys(made)).toEqual(Object.keys(spread));
        },
      ),
    );
  });

  it("keeps a key __proto__ an own field, and leaves inherited fields out", () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as object;
    const made = spreadWith(parsed, { b: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual(["__proto__", "a", "b"]);
    const child = Object.create({ inherited: true }) as Record<string, unknown>;
    child["own"] = 1;
    expect(spreadWith(child, {})).toEqual({ own: 1 });
  });
});
