import { describe, expect, it } from "vitest";
import { sameValue, snapshotOf } from "./same-value.js";

describe("snapshotOf", () => {
  it("is the same as the value until the value changes in place", () => {
    const value = {
      role: "user",
      content: [{ type: "text", text: "hi" }],
      bytes: new Uint8Array([1, 2]),
      at: new Date(5),
      url: new URL("https://example.com/a"),
    };
    const copy = snapshotOf(value);
    expect(sameValue(copy, value)).toBe(true);
    expect(sameValue(copy, JSON.parse(JSON.stringify(value)))).toBe(false);
    value.content.push({ type: "text", text: "more" });
    expect(sameValue(copy, value)).toBe(false);
    value.content.pop();
    value.bytes[0] = 9;
    expect(sameValue(copy, value)).toBe(false);
  });

  it("keeps a class instance by its prototype and own fields", () => {
    class Note {
      constructor(public text: string) {}
    }
    class Other {
      constructor(public text: string) {}
    }
    const note = new Note("a");
    const copy = snapshotOf(note);
    expect(sameValue(copy, note)).toBe(true);
    expect(sameValue(copy, new Note("a"))).toBe(true);
    expect(sameValue(copy, new Other("a"))).toBe(false);
    expect(sameValue(copy, { text: "a" })).toBe(false);
    note.text = "b";
    expect(sameValue(copy, note)).toBe(false);
  });

  it("copies a field named __proto__ as a field", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    const copy = snapshotOf(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(sameValue(copy, value)).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("copies what it cannot read or nest as a value the same as nothing", () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let level = 0; level < 100; level += 1) at = at["next"] = {} as Record<string, unknown>;
    expect(sameValue(snapshotOf(deep), deep)).toBe(false);
    const throwing = Object.defineProperty({}, "x", {
      enumerable: true,
      get: () => {
        throw new Error("no");
      },
    });
    expect(sameValue(snapshotOf(throwing), {})).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(sameValue(snapshotOf(cyclic), cyclic)).toBe(false);
  });
});
