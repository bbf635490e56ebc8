import { describe, expect, it } from "vitest";
import { freezeDeeply } from "./frozen.js";

describe("freezeDeeply", () => {
  it("freezes every object and array held, however deep, and ends on cycles", () => {
    const leaf = { path: "a.ts" };
    const value: Record<string, unknown> = { list: [leaf, { inner: [1, { x: 2 }] }], leaf };
    value.self = value;
    (leaf as Record<string, unknown>).up = undefined;
    expect(freezeDeeply(value)).toBe(value);
    const all: object[] = [];
    const walk = (item: unknown) => {
      if (typeof item !== "object" || item === null || all.includes(item)) return;
      all.push(item);
      for (const inner of Object.values(item)) walk(inner);
    };
    walk(value);
    expect(all.length).toBe(6);
    for (const item of all) expect(Object.isFrozen(item)).toBe(true);
  });

  it("walks again into an object frozen shallowly before, and a leaf shared by two values", () => {
    const inner = { n: 1 };
    const shallow = Object.freeze({ inner });
    freezeDeeply({ shallow });
    expect(Object.isFrozen(inner)).toBe(true);
    const shared = { n: 2 };
    freezeDeeply({ a: shared });
    const second = { b: shared, more: { m: 3 } };
    freezeDeeply(second);
    expect(Object.isFrozen(second.more)).toBe(true);
  });
});
