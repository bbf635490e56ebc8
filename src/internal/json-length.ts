import { MAX_JSON_DEPTH } from "./json-value.js";
import { isPlainObject } from "./plain-object.js";

/**
 * A character `JSON.stringify` escapes (a quote, a backslash, a control character) or may
 * (a surrogate: escaped when alone). One character class: a scan linear in the text.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes are what it looks for.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Strings up to this length count without a look for escapes (see {@link stringLength}). */
const SHORT_TEXT = 64;

/**
 * Characters of `text` as a JSON string literal, quotes included, as `JSON.stringify` writes it,
 * but for escapes in short strings: a key, a path or a command counts as its characters and
 * quotes (an escape there would move the estimate by a quarter of a token, and looking for one
 * was a fifth of the check of a conversation seen once). A longer text (code, a file's content),
 * where escapes add up, is scanned natively, and the rare one holding some measured exactly.
 */
function stringLength(text: string): number {
  return text.length > SHORT_TEXT && ESCAPED.test(text)
    ? JSON.stringify(text).length
    : text.length + 2;
}

/**
 * How deep {@link jsonLength} walks before it lets `JSON.stringify` measure the rest: as deep
 * as a valid value nests (`MAX_JSON_DEPTH`), as {@link checkedJsonObjectLength} does.
 */
const MAX_DEPTH = MAX_JSON_DEPTH;

/**
 * The length of `JSON.stringify(value)` without building the string: the token estimate
 * measures every tool input, and on a conversation seen once (a stateless server) the
 * strings were most of its garbage. Exact for JSON values (what the session validated) but
 * for escapes in strings of up to 64 characters ({@link stringLength}); anything else (a
 * `toJSON`, a function) is measured by `JSON.stringify` itself.
 */
export function jsonLength(value: unknown, depth = 0): number {
  switch (typeof value) {
    case "string":
      return stringLength(value);
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object":
      break;
    default:
      return JSON.stringify(value)?.length ?? 0;
  }
  if (value === null) return 4;
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function")
    return JSON.stringify(value)?.length ?? 0;
  if (Array.isArray(value)) {
    let length = 2 + Math.max(0, value.length - 1);
    for (const item of value) {
      const type = typeof item;
      length +=
        item === undefined || type === "function" || type === "symbol"
          ? 4
          : jsonLength(item, depth + 1);
    }
    return length;
  }
  let length = 2;
  let members = 0;
  // `for in` walks the object's keys without an array of them (its own: a JSON object).
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    const type = typeof item;
    if (item === undefined || type === "function" || type === "symbol") continue;
    length += stringLength(key) + 1 + jsonLength(item, depth + 1);
    members += 1;
  }
  return length + Math.max(0, members - 1);
}

/**
 * The length of `JSON.stringify(value)` when `value` is a JSON object by `jsonObjectIssues`'s
 * rules (a plain object of JSON values, no cycle, at most `MAX_JSON_DEPTH` levels deep), else
 * `-1`: one walk that checks and measures a tool input, for the fast path that checks every
 * message a stateless server is sent. `-1` also when an object's prototype has a `toJSON`
 * (`JSON.stringify` would call it): the caller then leaves the value to the slower checks.
 */
export function checkedJsonObjectLength(value: unknown): number {
  if (!isPlainObject(value) || hasPrototypeToJson()) return -1;
  return containerLength(value, 0, undefined);
}

function hasPrototypeToJson(): boolean {
  return (
    typeof (Object.prototype as { toJSON?: unknown }).toJSON === "function" ||
    typeof (Array.prototype as { toJSON?: unknown }).toJSON === "function"
  );
}

/** A container above the one being measured, for cycles: a list up to the top. */
interface Ancestor {
  value: object;
  parent: Ancestor | undefined;
}

/**
 * The JSON length of `value` (an array or plain object) at `depth` (0: the top), `-1` when it
 * or what it holds is no JSON value; `above`, the containers it is inside of.
 */
function containerLength(value: object, depth: number, above: Ancestor | undefined): number {
  if (depth >= MAX_JSON_DEPTH) return -1;
  for (let node = above; node !== undefined; node = node.parent)
    if (node.value === value) return -1;
  const here: Ancestor = { value, parent: above };
  if (Array.isArray(value)) {
    let length = 2 + Math.max(0, value.length - 1);
    for (let index = 0; index < value.length; index += 1) {
      const size = itemLength(value[index], depth, here);
      if (size < 0) return -1;
      length += size;
    }
    return length;
  }
  let length = 2;
  let members = 0;
  // `for in` walks the keys without an array of them; the object is plain, its keys its own
  // (an inherited enumerable key, which JSON would not write, sends it to the slower checks).
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return -1;
    const size = itemLength((value as Record<string, unknown>)[key], depth, here);
    if (size < 0) return -1;
    length += stringLength(key) + 1 + size;
    members += 1;
  }
  return length + Math.max(0, members - 1);
}

/** The JSON length of an item of a container at `depth` (`here`): see {@link containerLength}. */
function itemLength(item: unknown, depth: number, here: Ancestor): number {
  if (typeof item !== "object" || item === null) return primitiveLength(item);
  return Array.isArray(item) || isPlainObject(item) ? containerLength(item, depth + 1, here) : -1;
}

/** The JSON length of a string, finite number, boolean or null; `-1` for anything else. */
function primitiveLength(item: unknown): number {
  switch (typeof item) {
    case "string":
      return stringLength(item);
    case "number":
      return Number.isFinite(item) ? numberLength(item) : -1;
    case "boolean":
      return item ? 4 : 5;
    case "object":
      return item === null ? 4 : -1;
    default:
      return -1;
  }
}

/** The length of a finite number as JSON writes it; a small whole number without a string. */
function numberLength(value: number): number {
  if (!Number.isInteger(value) || value >= 1e9 || value <= -1e9) return String(value).length;
  let length = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) length += 1;
  return length;
}
