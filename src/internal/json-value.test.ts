import { describe, expect, it } from "vitest";
import { JsonObjectSchema, JsonValueSchema } from "../core/schemas.js";
import { jsonObjectIssues, jsonValueIssues, normalizeJson } from "./json-value.js";

describe("jsonValueIssues", () => {
  it("accepts JSON values: strings, finite numbers, booleans, null, arrays, plain objects", () => {
    const value = { a: [1, -0, "x", true, null, { b: [] }], c: Object.create(null) };
    expect(jsonValueIssues(value)).toEqual([]);
    expect(jsonValueIssues([])).toEqual([]);
    expect(jsonValueIssues("x")).toEqual([]);
  });

  it("names each value JSON cannot hold by its path", () => {
    class Point {
      x = 1;
    }
    const value = {
      a: [1, Number.NaN],
      b: { c: Number.POSITIVE_INFINITY, d: () => 1, e: undefined },
      f: new Point(),
      g: new Date(0),
    };
    expect(jsonValueIssues(value)).toEqual([
      { path: ["a", 1], message: "must be a finite number" },
      { path: ["b", "c"], message: "must be a finite number" },
      { path: ["b", "d"], message: "must be a JSON value, not function" },
      { path: ["b", "e"], message: "must be a JSON value, not undefined" },
      { path: ["f"], message: "must be a plain JSON object, not a Point" },
      { path: ["g"], message: "must be a plain JSON object, not a Date" },
    ]);
  });

  it("refuses an object that contains itself, and accepts one shared twice", () => {
    const shared = { x: 1 };
    expect(jsonValueIssues({ a: shared, b: [shared] })).toEqual([]);
    const cycle: Record<string, unknown> = { a: { b: [] } };
    ((cycle["a"] as { b: unknown[] }).b as unknown[]).push(cycle);
    expect(jsonValueIssues(cycle)).toEqual([
      { path: ["a", "b", 0], message: "must not contain itself (circular reference)" },
    ]);
  });

  it("jsonObjectIssues also wants an object", () => {
    expect(jsonObjectIssues({ a: 1 })).toEqual([]);
    expect(jsonObjectIssues([1])).toEqual([
      { path: [], message: "must be a JSON object, not an array" },
    ]);
    expect(jsonObjectIssues("x")).toEqual([
      { path: [], message: "must be a JSON object, not string" },
    ]);
    expect(jsonObjectIssues(null)).toEqual([
      { path: [], message: "must be a JSON object, not null" },
    ]);
  });
});

describe("normalizeJson", () => {
  it("copies as JSON carries it: undefined properties dropped, -0 kept, issues below the path", () => {
    const issues: { path: (string | number)[]; message: string }[] = [];
    const value = { a: undefined, b: [-0, undefined], c: { d: Number.NaN } };
    const copy = normalizeJson(value, ["x"], issues);
    expect(copy).toEqual({ b: [-0, null], c: {} });
    expect(Object.is((copy as { b: number[] }).b[0], -0)).toBe(true);
    expect(copy).not.toBe(value);
    expect(issues).toEqual([
      { path: ["x", "b", 1], message: "must be a JSON value, not undefined" },
      { path: ["x", "c", "d"], message: "must be a finite number" },
    ]);
  });
});

describe("JsonValueSchema and JsonObjectSchema", () => {
  it("report the first issue, named by its path within the value", () => {
    const result = JsonObjectSchema.safeParse({ a: { b: [Number.NaN] } });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: [], message: "a.b[0] must be a finite number" },
    ]);
    expect(JsonValueSchema.safeParse([1, "x", null]).success).toBe(true);
    expect(JsonObjectSchema.safeParse([1]).error?.issues[0]?.message).toBe(
      "must be a JSON object, not an array",
    );
  });
});
