import type { JsonObject } from "../core/message.js";

/** Whether `value` is an object literal: its prototype is `Object.prototype` or `null`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Sets an own property, even one named `__proto__` (as `JSON.parse` would), never the prototype. */
export function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * `{ ...base, ...additions }` for objects of string keys (JSON values, messages, blocks), made
 * without a slow path of V8: in Node 20 a spread given fields of its own (`{ ...base, key: v }`)
 * takes some 0.3 µs a field, this a few nanoseconds. Own enumerable fields of `base` are copied
 * (a key `__proto__` as an own field, as a spread copies it), then those of `additions`.
 * Typed as TypeScript types a spread of generic objects.
 */
export function spreadWith<B extends object, A extends object>(base: B, additions: A): B & A {
  const out: Record<string, unknown> = {};
  for (const key in base)
    if (Object.hasOwn(base, key)) setOwnProperty(out, key, (base as Record<string, unknown>)[key]);
  for (const key in additions)
    if (Object.hasOwn(additions, key))
      setOwnProperty(out, key, (additions as Record<string, unknown>)[key]);
  return out as B & A;
}

/**
 * `Object.prototype.hasOwnProperty`, called as `HAS_OWN.call(object, key)` in a `for…in` over
 * that object: V8 answers it from the loop's key cache, where `Object.hasOwn` is a call per key.
 */
export const HAS_OWN = Object.prototype.hasOwnProperty;

/** Whether every enumerable key of `value` is its own and one of `keys`. */
export function hasOnlyKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  for (const key in value) if (!HAS_OWN.call(value, key) || !keys.includes(key)) return false;
  return true;
}

/**
 * `value`'s own fields but `keys` and those holding `undefined` (as JSON drops them), a new
 * object: a field named `__proto__` stays an own field ({@link setOwnProperty}).
 */
export function without(
  value: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): JsonObject {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (field !== undefined && !keys.includes(key)) setOwnProperty(out, key, field);
  }
  return out as JsonObject;
}
