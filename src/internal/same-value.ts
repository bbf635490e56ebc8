/** How deep {@link sameValue} compares; a deeper value counts as different (never a false match). */
const MAX_DEPTH = 64;

/**
 * Whether two values hold the same data: primitives by `Object.is`, arrays and plain objects
 * by their items and own keys (a key holding `undefined` counts as absent, as in JSON), byte
 * arrays by their bytes, URLs by their address, dates by their time; a class instance copied by
 * {@link snapshotOf} (on the left) by its prototype and own fields. What it cannot compare
 * (other class instances, nesting deeper than 64 levels) counts as different. Linear in the
 * size of the values; no recursion past the depth limit.
 */
export function sameValue(left: unknown, right: unknown, depth = 0): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null)
    return false;
  if (depth >= MAX_DEPTH) return false;
  if (left instanceof InstanceCopy)
    return (
      Object.getPrototypeOf(right) === left.prototype &&
      sameFields(left.fields, right as Record<string, unknown>, depth)
    );
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index += 1)
      if (!sameValue(left[index], right[index], depth + 1)) return false;
    return true;
  }
  if (left instanceof Uint8Array || right instanceof Uint8Array)
    return left instanceof Uint8Array && right instanceof Uint8Array && sameBytes(left, right);
  if (left instanceof URL || right instanceof URL)
    return left instanceof URL && right instanceof URL && left.href === right.href;
  if (left instanceof Date || right instanceof Date)
    return left instanceof Date && right instanceof Date && left.getTime() === right.getTime();
  if (!isPlain(left) || !isPlain(right)) return false;
  return sameFields(left as Record<string, unknown>, right as Record<string, unknown>, depth);
}

function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1)
    if (left[index] !== right[index]) return false;
  return true;
}

function sameFields(
  left: Record<string, unknown>,
  right: Record<string, unknown>,
  depth: number,
): boolean {
  let count = 0;
  for (const key of Object.keys(left)) {
    const value = left[key];
    if (value === undefined) continue;
    count += 1;
    if (!Object.hasOwn(right, key) || !sameValue(value, right[key], depth + 1)) return false;
  }
  for (const key of Object.keys(right)) if (right[key] !== undefined) count -= 1;
  return count === 0;
}

/** A class instance as {@link snapshotOf} copied it: its prototype and its own fields. */
class InstanceCopy {
  constructor(
    readonly prototype: unknown,
    readonly fields: Record<string, unknown>,
  ) {}
}

/** What {@link snapshotOf} leaves of a value it could not read or copy: the same as nothing. */
class Uncopied {}

/**
 * A deep copy of `value` that {@link sameValue} compares as equal to `value` as it is now, and
 * unequal once it changes in place: plain objects and arrays copied, byte arrays, URLs and dates
 * too, another class instance as its prototype and own fields. A value deeper than
 * {@link sameValue} compares, or one whose reading throws, copies as a value equal to nothing.
 */
export function snapshotOf(value: unknown): unknown {
  try {
    return copyOf(value, 0);
  } catch {
    return new Uncopied();
  }
}

function copyOf(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DEPTH) return new Uncopied();
  if (Array.isArray(value)) return value.map((item: unknown) => copyOf(item, depth + 1));
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (value instanceof URL) return new URL(value.href);
  if (value instanceof Date) return new Date(value.getTime());
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyOf((value as Record<string, unknown>)[key], depth + 1);
    // Defined, not set: a key `__proto__` is a field like any other.
    if (key === "__proto__")
      Object.defineProperty(fields, key, { value: copy, enumerable: true, writable: true });
    else fields[key] = copy;
  }
  return isPlain(value) ? fields : new InstanceCopy(Object.getPrototypeOf(value), fields);
}
