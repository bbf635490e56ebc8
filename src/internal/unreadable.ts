import type * as z from "zod/mini";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import { MAX_JSON_DEPTH } from "./json-value.js";

type Path = (string | number)[];

/** What an issue says of a value whose reading threw (a getter, a proxy's trap). */
export const UNREADABLE = "could not be read (a getter or proxy threw)";

/**
 * The issue of `items[index]`, whose reading threw (a getter or a proxy's trap: bad input, not
 * a fault of ours): named below `above`, down to the first field whose read throws again (see
 * {@link unreadablePath}). Only ever asked after a reading threw: nothing on the happy path.
 */
export function unreadableIssue(
  items: readonly unknown[],
  index: number,
  above: Path = [],
): ValidationIssue {
  return { path: [...above, ...unreadablePath(items, index)], message: UNREADABLE };
}

/**
 * Where reading `items[index]` throws: `index` and the path below it of the first field whose
 * read throws (see {@link faultPath}); `[index]` alone when the item itself cannot be read, or
 * no read throws again (a getter that threw once).
 */
export function unreadablePath(items: readonly unknown[], index: number): Path {
  let item: unknown;
  try {
    item = items[index];
  } catch {
    return [index];
  }
  return [index, ...(faultPath(item) ?? [])];
}

/**
 * The path below `value` of the first field whose read throws (the fields of each object read
 * in the order of its keys, each object once, as deep as a JSON value nests), or of the first
 * object whose keys cannot be listed (`[]`: `value`'s own); `undefined` when no read throws.
 */
export function faultPath(value: unknown): Path | undefined {
  const path: Path = [];
  return faultBelow(value, path, new Set()) ? path : undefined;
}

/**
 * Whether reading `value` throws somewhere, `path` (its own) then naming where; each object
 * walked once (`seen`: shared ones too, so a value of many paths to one object is linear).
 */
function faultBelow(value: unknown, path: Path, seen: Set<object>): boolean {
  if (typeof value !== "object" || value === null || seen.has(value)) return false;
  if (seen.size >= MAX_OBJECTS || path.length > MAX_JSON_DEPTH) return false;
  seen.add(value);
  let keys: string[];
  let array: boolean;
  try {
    // Listing the keys runs a proxy's traps; telling an array, a revoked proxy's.
    keys = Object.keys(value);
    array = Array.isArray(value);
  } catch {
    return true;
  }
  for (const key of keys) {
    path.push(array && String(Number(key)) === key ? Number(key) : key);
    let field: unknown;
    try {
      field = (value as Record<string, unknown>)[key];
    } catch {
      return true;
    }
    if (faultBelow(field, path, seen)) return true;
    path.pop();
  }
  return false;
}

/** How many objects {@link faultBelow} walks at most: a search, not a second reading of any size. */
const MAX_OBJECTS = 100_000;

/**
 * `error`, thrown while `value` (and what else a reading asked) was read: bad input when reading
 * `value` throws again, a `ValidationError` about `subject` naming where ({@link faultPath}),
 * `error` its cause; else `error` itself (a `ValidationError` already, or not `value`'s fault).
 */
export function unreadableError(subject: string, value: unknown, error: unknown): unknown {
  if (ValidationError.isInstance(error)) return error;
  const path = faultPath(value);
  if (path === undefined) return error;
  return new ValidationError(subject, [{ path, message: UNREADABLE }], { cause: error });
}

/**
 * The length of `value` when it is an array (or a proxy of one), else `undefined`: a
 * `ValidationError` about `subject` naming `path` when that cannot be read (a proxy's trap
 * threw, or it was revoked), its error the cause. Read once: the readings loop to it.
 */
export function arrayLength(value: unknown, subject: string, path: Path = []): number | undefined {
  try {
    return Array.isArray(value) ? value.length : undefined;
  } catch (error) {
    throw new ValidationError(subject, [{ path, message: UNREADABLE }], { cause: error });
  }
}

/**
 * `parseOrThrow`, a getter (or a proxy's trap) of `value` that throws named as a field that
 * could not be read ({@link unreadableError}) rather than let out: zod reads the caller's fields.
 */
export function parseReadable<T>(schema: z.ZodMiniType<T>, value: unknown, subject: string): T {
  try {
    return parseOrThrow(schema, value, subject);
  } catch (error) {
    throw unreadableError(subject, value, error);
  }
}
