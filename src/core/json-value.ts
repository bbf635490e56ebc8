import type { ValidationIssue } from "./errors.js";
import { isPlainObject } from "./plain-object.js";

type Path = (string | number)[];

/**
 * What keeps `value` from being a JSON value, each with its path below `value`: a number
 * that is not finite, `undefined`, a function or other non-JSON type, a class instance, an
 * object that contains itself. Empty when it is one. Reads only; nothing is copied.
 */
export function jsonValueIssues(value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  check(value, [], issues, []);
  return issues;
}

/** {@link jsonValueIssues}, and an issue when `value` is not an object (an array is not one). */
export function jsonObjectIssues(value: unknown): ValidationIssue[] {
  if (isPlainObject(value)) return jsonValueIssues(value);
  return [{ path: [], message: `must be a JSON object, not ${describe(value)}` }];
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "a class instance" : typeof value;
}

// One path array, pushed and popped on the way down, copied only into an issue.
function check(value: unknown, path: Path, issues: ValidationIssue[], ancestors: object[]) {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      issues.push({ path: [...path], message: "must be a finite number" });
    return;
  }
  if (typeof value !== "object" || !(Array.isArray(value) || isPlainObject(value))) {
    issues.push({ path: [...path], message: `must be a JSON value, not ${describe(value)}` });
    return;
  }
  if (ancestors.includes(value)) {
    issues.push({ path: [...path], message: "must not contain itself (circular reference)" });
    return;
  }
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      path.push(index);
      check(value[index], path, issues, ancestors);
      path.pop();
    }
  } else {
    for (const key of Object.keys(value)) {
      path.push(key);
      check((value as Record<string, unknown>)[key], path, issues, ancestors);
      path.pop();
    }
  }
  ancestors.pop();
}
