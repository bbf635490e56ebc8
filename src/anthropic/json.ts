import type { ValidationIssue } from "../core/errors.js";
import type { JsonObject, JsonValue } from "../core/message.js";

type Path = (string | number)[];

/**
 * A deep copy of `value` as JSON would carry it: object properties holding `undefined` are
 * dropped (as `JSON.stringify` drops them); anything JSON cannot hold (functions, NaN,
 * class instances, cycles, `undefined` in arrays) is reported in `issues` with its path.
 * Numbers are copied as they are, so `-0` stays `-0`.
 */
export function normalizeJson(
  value: unknown,
  path: Path,
  issues: ValidationIssue[],
  ancestors: Set<object> = new Set(),
): JsonValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    issues.push({ path, message: "must be a finite number" });
    return undefined;
  }
  if (typeof value !== "object") {
    issues.push({ path, message: `must be a JSON value, not ${typeof value}` });
    return undefined;
  }
  if (ancestors.has(value)) {
    issues.push({ path, message: "must not contain itself (circular reference)" });
    return undefined;
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item, index) => {
        if (item === undefined) {
          issues.push({ path: [...path, index], message: "must not be undefined" });
          return null;
        }
        return normalizeJson(item, [...path, index], issues, ancestors) ?? null;
      });
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      issues.push({ path, message: "must be a plain JSON object" });
      return undefined;
    }
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const normalized = normalizeJson(item, [...path, key], issues, ancestors);
      if (normalized !== undefined) setProperty(copy, key, normalized);
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

/** Sets an own property, even one named `__proto__` (as `JSON.parse` would). */
export function setProperty(target: JsonObject, key: string, value: JsonValue): void {
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

/** Whether `value` is a JSON object (not an array, not null). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
