/** Broken copies of valid input, for the fuzz suites: junk values, every path of a tree, a value replaced. */
import fc from "fast-check";

/** Values no field of ours accepts as they are (wrong type or out of every range). */
export const INVALID_EVERYWHERE: readonly unknown[] = [
  null,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  -0.5,
  2 ** 60,
  1e308,
  Symbol("bad"),
  10n,
  [[["nested"]]],
  new Date(Number.NaN),
];

/** Any value, mostly wrong shapes. */
export const junkArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...INVALID_EVERYWHERE, undefined, "", "x", true, 0, 1.5, {}, [], () => 1),
  fc.anything({
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
  }),
);

export type Path = (string | number)[];

/** Every path of an object tree (not into Dates). */
export function paths(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== "object" || value === null || value instanceof Date) return [];
  const out: Path[] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    out.push(path, ...paths(child, path));
  }
  return out;
}

/** A copy of `value` with the value at `path` replaced (or deleted when `replacement` is DELETE). */
export const DELETE = Symbol("delete");
export function mutate(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Path];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  if (rest.length === 0 && replacement === DELETE) {
    if (Array.isArray(copy)) copy.splice(Number(head), 1);
    else delete copy[head];
  } else copy[head] = mutate(copy[head], rest, replacement);
  return copy;
}

/** Whether path `a` is `b` or leads to it. */
export const isPrefix = (a: Path, b: Path) =>
  a.length <= b.length && a.every((part, i) => part === b[i]);

/** What replaces one value: junk, one of `plausible` (values some field accepts), or nothing (deleted). */
export function replacementArbitrary(plausible: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(junkArbitrary, fc.constant(DELETE), fc.constantFrom(...plausible));
}

/** A copy of `value` with the value at one of its paths (the `pick`-th, wrapping) replaced. */
export function oneChanged(value: unknown, pick: number, replacement: unknown): unknown {
  const all = paths(value);
  return mutate(value, all[pick % all.length]!, replacement);
}
