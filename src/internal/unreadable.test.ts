import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { arrayLength, faultPath, unreadableError, unreadablePath } from "./unreadable.js";

const boom = new Error("boom");
const throwing = () => {
  throw boom;
};
const withGetter = <T extends object>(target: T, key: string, read: () => unknown): T =>
  Object.defineProperty(target, key, { get: read, enumerable: true });

describe("faultPath: where reading a value throws, found again after a reading threw", () => {
  it("names the first field whose read throws, array items by number", () => {
    const value = { a: 1, list: [{ ok: true }, withGetter({ x: 1 }, "y", throwing)] };
    expect(faultPath(value)).toEqual(["list", 1, "y"]);
  });

  it("names an object whose keys cannot be listed, or a proxy's field whose get throws", () => {
    expect(faultPath({ inner: new Proxy({}, { ownKeys: throwing }) })).toEqual(["inner"]);
    expect(faultPath({ inner: new Proxy({ k: 1 }, { get: throwing }) })).toEqual(["inner", "k"]);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(faultPath([proxy])).toEqual([0]);
  });

  it("is undefined when no read throws, a cycle and a shared object walked once", () => {
    const shared = { n: 1 };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic["self"] = cyclic;
    expect(faultPath(cyclic)).toBeUndefined();
    expect(faultPath("text")).toBeUndefined();
  });

  it("ends on getters that make a new object at every read (bounded, not exponential)", () => {
    const fresh = (): object => withGetter(withGetter({}, "left", fresh), "right", fresh);
    expect(faultPath(fresh())).toBeUndefined();
  });

  it("unreadablePath: the item's index first; the index alone when the item cannot be read", () => {
    const items = [{ ok: 1 }, withGetter({}, "z", throwing)];
    expect(unreadablePath(items, 1)).toEqual([1, "z"]);
    expect(unreadablePath(withGetter([] as unknown[], "0", throwing), 0)).toEqual([0]);
  });
});

describe("unreadableError, arrayLength", () => {
  it("an error is bad input only when the value's reading throws again", () => {
    const error = unreadableError("X", withGetter({}, "f", throwing), boom);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      "Invalid X: f: could not be read (a getter or proxy threw)",
    );
    const own = new Error("ours");
    expect(unreadableError("X", { f: 1 }, own)).toBe(own);
  });

  it("tells an array and reads its length; a proxy whose traps throw is named", () => {
    expect(arrayLength([1, 2], "X")).toBe(2);
    expect(arrayLength({ length: 2 }, "X")).toBeUndefined();
    expect(() => arrayLength(new Proxy([], { get: throwing }), "X")).toThrow(
      "Invalid X: could not be read (a getter or proxy threw)",
    );
  });
});
