import type { ValidationIssue } from "../core/errors.js";
import type { JsonObject, JsonValue } from "../core/message.js";
import { isPlainObject } from "../core/plain-object.js";

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
): JsonValue | undefined {
  // One path array, pushed and popped on the way down, copied only into an issue.
  return normalize(value, [...path], issues, new Set());
}

function normalize(
  value: unknown,
  path: Path,
  issues: ValidationIssue[],
  ancestors: Set<object>,
): JsonValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    issues.push({ path: [...path], message: "must be a finite number" });
    return undefined;
  }
  if (typeof value !== "object") {
    issues.push({ path: [...path], message: `must be a JSON value, not ${typeof value}` });
    return undefined;
  }
  if (ancestors.has(value)) {
    issues.push({ path: [...path], message: "must not contain itself (circular reference)" });
    return undefined;
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const copy: JsonValue[] = new Array(value.length);
      for (let index = 0; index < value.length; index += 1) {
        path.push(index);
        const item: unknown = value[index];
        if (item === undefined) {
          issues.push({ path: [...path], message: "must not be undefined" });
          copy[index] = null;
        } else {
          copy[index] = normalize(item, path, issues, ancestors) ?? null;
        }
        path.pop();
      }
      return copy;
    }
    if (!isPlainObject(value)) {
      issues.push({ path: [...path], message: "must be a plain JSON object" });
      return undefined;
    }
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      path.push(key);
      const normalized = normalize(item, path, issues, ancestors);
      path.pop();
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
