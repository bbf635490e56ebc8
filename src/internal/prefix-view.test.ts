import { describe, expect, it } from "vitest";
import { isPrefixView, plainPrefix, prefixView } from "./prefix-view.js";

describe("prefixView", () => {
  it("reads as an array of the first elements, and stays so while the backing grows", () => {
    const backing = [{ n: 0 }, { n: 1 }, { n: 2 }];
    const view = prefixView(backing, 2);
    backing.push({ n: 3 });
    expect(Array.isArray(view)).toBe(true);
    expect(view).toBeInstanceOf(Array);
    expect(view.length).toBe(2);
    expect(view[1]).toBe(backing[1]);
    expect(view[2]).toBeUndefined();
    expect(view.at(-1)).toBe(backing[1]);
    expect([...view]).toEqual([{ n: 0 }, { n: 1 }]);
    expect(view).toEqual([{ n: 0 }, { n: 1 }]);
    expect(JSON.stringify(view)).toBe('[{"n":0},{"n":1}]');
    expect(Object.keys(view)).toEqual(["0", "1"]);
    expect(view.map((item) => item.n)).toEqual([0, 1]);
    expect(Array.isArray(view.slice(1))).toBe(true);
    expect([0, ...view].length).toBe(3);
    expect([[-1]].concat(view as never).length).toBe(3);
    expect(view.includes(backing[1]!)).toBe(true);
    expect(view.indexOf(backing[2]!)).toBe(-1);
    expect(1 in view).toBe(true);
    expect(2 in view).toBe(false);
    expect(structuredClone([...view])).toEqual([{ n: 0 }, { n: 1 }]);
  });

  it("refuses every write", () => {
    const view = prefixView([1, 2, 3], 3) as number[];
    expect(() => {
      view[0] = 9;
    }).toThrow(TypeError);
    expect(() => view.push(4)).toThrow(TypeError);
    expect(() => view.sort((a, b) => b - a)).toThrow(TypeError);
    expect(() => {
      view.length = 0;
    }).toThrow(TypeError);
    expect(() => delete view[0]).toThrow(TypeError);
    expect(() => Object.defineProperty(view, "0", { value: 9 })).toThrow(TypeError);
    expect(() => Object.setPrototypeOf(view, null)).toThrow(TypeError);
    expect([...view]).toEqual([1, 2, 3]);
  });

  it("is told apart, and copied by a native slice", () => {
    const backing = ["a", "b", "c"];
    const view = prefixView(backing, 2);
    expect(isPrefixView(view)).toBe(true);
    expect(isPrefixView(backing)).toBe(false);
    const copy = plainPrefix(view);
    expect(copy).toEqual(["a", "b"]);
    expect(plainPrefix(backing)).toBeUndefined();
    copy?.push("x");
    expect(view.length).toBe(2);
  });
});
