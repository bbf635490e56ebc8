import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ValidationIssue } from "../../src/core/errors.js";
import { copyJson, normalizeJson, normalizeJsonByWalk } from "../../src/internal/json-value.js";
import { seed } from "../properties/invariants.js";

/**
 * `normalizeJson` tries the quick copy (`copyJson`) before its checking walk: the two together
 * must give exactly what the walk alone gives, the same copy (keys in the same order, `-0`
 * kept, nothing shared with the input) and the same issues, on JSON and on what JSON cannot hold.
 */

/** Values JSON cannot hold, or that the quick copy leaves to the walk. */
const ODD: readonly unknown[] = [
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  () => 1,
  Symbol("s"),
  10n,
  new Date(0),
  new Map(),
  Object.create(null),
  -0,
];

const odd = fc.constantFrom(...ODD);

const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null)),
    { arbitrary: odd, weight: 1 },
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom("__proto__", "0", "10", "a")),
      tie("value"),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value;

/** Keys in order, all the way down: `toEqual` alone does not compare their order. */
function keyOrder(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return Object.is(value, -0) ? "-0" : value;
  if (Array.isArray(value)) return value.map(keyOrder);
  return Object.keys(value).map((key) => [key, keyOrder((value as Record<string, unknown>)[key])]);
}

/** Whether `copy` shares an object with `input`. */
function shares(copy: unknown, input: unknown, seen = new Set<unknown>()): boolean {
  if (typeof input !== "object" || input === null || seen.has(input)) return false;
  seen.add(input);
  if (copy === input) return true;
  if (typeof copy !== "object" || copy === null) return false;
  for (const key of Object.keys(input))
    if (
      shares((copy as Record<string, unknown>)[key], (input as Record<string, unknown>)[key], seen)
    )
      return true;
  return false;
}

describe("normalizeJson: the quick copy in front of the walk", () => {
  it("gives the walk's copy and issues, keys in the same order, sharing nothing", () => {
    fc.assert(
      fc.property(value, (input) => {
        const fastIssues: ValidationIssue[] = [];
        const walkIssues: ValidationIssue[] = [];
        const fast = normalizeJson(input, ["at"], fastIssues);
        const walked = normalizeJsonByWalk(input, ["at"], walkIssues);
        expect(keyOrder(fast)).toEqual(keyOrder(walked));
        expect(fast).toEqual(walked);
        expect(fastIssues).toEqual(walkIssues);
        expect(shares(fast, input)).toBe(false);
        const quick = copyJson(input);
        if (quick !== undefined) expect(walkIssues).toEqual([]);
      }),
      { seed: seed(3_100_131), numRuns: 3000 },
    );
  });

  it("leaves a cycle and a key __proto__ to the walk, which names the cycle and keeps the key", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle["self"] = cycle;
    const issues: ValidationIssue[] = [];
    expect(normalizeJson(cycle, [], issues)).toEqual({ a: 1 });
    expect(issues).toEqual([
      { path: ["self"], message: "must not contain itself (circular reference)" },
    ]);
    const proto = JSON.parse('{"__proto__": {"x": 1}, "b": 2}') as unknown;
    const copy = normalizeJson(proto, [], []) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});
