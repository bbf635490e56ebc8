import type { ValidationIssue } from "../core/errors.js";
import type { JsonObject, JsonValue } from "../core/message.js";
import { isPlainObject, setOwnProperty } from "./plain-object.js";

type Path = (string | number)[];

/**
 * How deep a JSON value may nest (objects and arrays inside one another; the value itself is
 * level 1). Deeper input is refused where it enters, so every walk over it (validation,
 * estimates, snapshots and their restore, provider conversions) stays far from the stack limit.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * What keeps `value` from being a JSON value, each with its path below `value`: a number
 * that is not finite, `undefined`, a function or other non-JSON type, a class instance, an
 * object that contains itself. Empty when it is one. Reads only; nothing is copied.
 */
export function jsonValueIssues(value: unknown): ValidationIssue[] {
  const walk: Walk = { issues: [], ancestors: [], copy: false };
  visit(value, [], walk);
  return walk.issues;
}

/** {@link jsonValueIssues}, and an issue when `value` is not an object (an array is not one). */
export function jsonObjectIssues(value: unknown): ValidationIssue[] {
  if (isPlainObject(value)) return jsonValueIssues(value);
  return [{ path: [], message: `must be a JSON object, not ${describe(value)}` }];
}

/**
 * Whether {@link jsonObjectIssues} finds no issue in `value`: the same rules, answered by a walk
 * that builds no paths and allocates only for nested values (it runs on every tool input of
 * every conversation a stateless server is sent).
 */
export function isJsonObject(value: unknown): boolean {
  return isPlainObject(value) && validJsonMembers(value, []);
}

/** Whether every member of `value` (an array or plain object) is a JSON value; `ancestors` hold it. */
function validJsonMembers(value: object, ancestors: object[]): boolean {
  if (ancestors.length >= MAX_JSON_DEPTH || ancestors.includes(value)) return false;
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1)
      if (!validJsonItem(value[index], ancestors)) return false;
  } else {
    for (const key of Object.keys(value))
      if (!validJsonItem((value as Record<string, unknown>)[key], ancestors)) return false;
  }
  ancestors.pop();
  return true;
}

function validJsonItem(item: unknown, ancestors: object[]): boolean {
  switch (typeof item) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(item);
    case "object":
      if (item === null) return true;
      return (Array.isArray(item) || isPlainObject(item)) && validJsonMembers(item, ancestors);
    default:
      return false;
  }
}

/**
 * A deep copy of `value` as JSON would carry it: object properties holding `undefined` are
 * dropped (as `JSON.stringify` drops them); what JSON cannot hold (see {@link jsonValueIssues})
 * is reported in `issues` with its path below `path`, and left out of the copy. Numbers are
 * copied as they are, so `-0` stays `-0`. Tried first by {@link copyJson}, which makes the same
 * copy of the common value faster, then by the walk that names each issue. `nullItems`: an
 * array item holding `undefined` is `null`, as `JSON.stringify` writes it (else an issue).
 */
export function normalizeJson(
  value: unknown,
  path: Path,
  issues: ValidationIssue[],
  nullItems = false,
): JsonValue | undefined {
  // The common case by the quick copy (the same copy, made without paths); the rest walked.
  const walk = { issues, ancestors: [], copy: true, nullItems };
  return copyJson(value) ?? visit(value, [...path], walk);
}

/**
 * {@link normalizeJson} by its checking walk alone, without the quick copy in front: for a
 * caller that tried {@link copyJson} itself, and what the quick copy is held to
 * (`test/fuzz/json-copy.fuzz.test.ts`).
 */
export function normalizeJsonByWalk(
  value: unknown,
  path: Path,
  issues: ValidationIssue[],
): JsonValue | undefined {
  return visit(value, [...path], { issues, ancestors: [], copy: true });
}

/** How deep {@link copyJson} copies before it leaves the value to {@link normalizeJson}. */
const MAX_QUICK_COPY_DEPTH = 64;

/**
 * The copy {@link normalizeJson} makes of `value`, made by a walk without paths, for the common
 * case; `undefined` when `value` holds anything that walk would drop, report or treat apart
 * (`undefined`, what JSON cannot hold, a key `__proto__`, nesting past 64 levels, which also
 * ends a cycle): ask {@link normalizeJson} then.
 */
export function copyJson(value: unknown, depth = 0): JsonValue | undefined {
  if (typeof value !== "object" || value === null)
    return isJsonPrimitive(value) ? value : undefined;
  if (depth >= MAX_QUICK_COPY_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const items: JsonValue[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) {
      const item = copyJson(value[index], depth + 1);
      if (item === undefined) return undefined;
      items[index] = item;
    }
    return items;
  }
  if (!isPlainObject(value)) return undefined;
  const fields: JsonObject = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key) || key === "__proto__") return undefined;
    const item = copyJson(value[key], depth + 1);
    if (item === undefined) return undefined;
    fields[key] = item;
  }
  return fields;
}

function isJsonPrimitive(value: unknown): value is string | number | boolean | null {
  return (
    value === null ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/** Sets an own property, even one named `__proto__` (as `JSON.parse` would). */
export function setProperty(target: JsonObject, key: string, value: JsonValue): void {
  setOwnProperty(target, key, value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return typeof value;
  const name: unknown = value.constructor?.name;
  return typeof name === "string" && name !== "" ? `a ${name}` : "a class instance";
}

/** One walk: the issues found, the objects it is inside of, and whether it copies. */
interface Walk {
  issues: ValidationIssue[];
  ancestors: object[];
  copy: boolean;
  /** An array item holding `undefined` is `null` (see {@link normalizeJson}). */
  nullItems?: boolean;
}

/**
 * Checks `value` (and copies it when `walk.copy`; otherwise returns `undefined`). One path
 * array, pushed and popped on the way down, copied only into an issue. Recursion is bounded by
 * {@link MAX_JSON_DEPTH}: deeper input is one issue, about the value as a whole.
 */
function visit(value: unknown, path: Path, walk: Walk): JsonValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    walk.issues.push({ path: [...path], message: "must be a finite number" });
    return undefined;
  }
  if (typeof value !== "object") {
    walk.issues.push({ path: [...path], message: `must be a JSON value, not ${describe(value)}` });
    return undefined;
  }
  if (!Array.isArray(value) && !isPlainObject(value)) {
    walk.issues.push({
      path: [...path],
      message: `must be a plain JSON object, not ${describe(value)}`,
    });
    return undefined;
  }
  if (walk.ancestors.length >= MAX_JSON_DEPTH) {
    // About the value walked as a whole: its path, one step per container above dropped.
    walk.issues.push({
      path: path.slice(0, path.length - walk.ancestors.length),
      message: `nests deeper than ${MAX_JSON_DEPTH} levels`,
    });
    return undefined;
  }
  if (walk.ancestors.includes(value)) {
    walk.issues.push({ path: [...path], message: "must not contain itself (circular reference)" });
    return undefined;
  }
  walk.ancestors.push(value);
  let copy: JsonValue | undefined;
  if (Array.isArray(value)) {
    const items: JsonValue[] | undefined = walk.copy ? new Array(value.length) : undefined;
    for (let index = 0; index < value.length; index += 1) {
      path.push(index);
      const raw: unknown = value[index];
      const item = raw === undefined && walk.nullItems === true ? null : visit(raw, path, walk);
      if (items !== undefined) items[index] = item ?? null;
      path.pop();
    }
    copy = items;
  } else {
    const fields: JsonObject | undefined = walk.copy ? {} : undefined;
    for (const key of Object.keys(value)) {
      const item: unknown = value[key];
      // JSON drops such a property: a copy leaves it out, a check names it.
      if (item === undefined && fields !== undefined) continue;
      path.push(key);
      const field = visit(item, path, walk);
      path.pop();
      if (fields !== undefined && field !== undefined) setProperty(fields, key, field);
    }
    copy = fields;
  }
  walk.ancestors.pop();
  return copy;
}
