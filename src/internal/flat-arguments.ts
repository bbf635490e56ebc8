import type { JsonObject } from "../core/message.js";
import { HAS_OWN } from "./plain-object.js";

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const LOWEST_PRINTABLE = 0x20;
const HIGHEST_PRINTABLE = 0x7e;
/** Digits of an integer any double holds exactly (2^53 has 16). */
const MAX_DIGITS = 15;

/**
 * The input a tool call's `arguments` text stands for when the text is a flat JSON object
 * written exactly as `JSON.stringify` writes its input (`{"path":"a.ts","limit":20}`): a model's
 * usual arguments, read in one pass that both parses and tells the text needs no keeping
 * (`parseToolArguments`' `keep` is `false`), which `JSON.parse` and the comparison after it take
 * twice as long to say. `undefined` for any other text, which `parseToolArguments` then reads:
 * a value other than a string of printable ASCII without `"` or `\`, an integer of at most 15
 * digits (no leading zero, not `-0`), `true`, `false` or `null`; a key not such a string, or
 * one that starts with a digit (`JSON.parse` puts an index key first), `__proto__`, or one given
 * twice; any whitespace. Linear in the text, no recursion.
 */
export function flatArguments(text: string): JsonObject | undefined {
  const end = text.length - 1;
  if (end < 1 || text.charCodeAt(0) !== OPEN_BRACE || text.charCodeAt(end) !== CLOSE_BRACE)
    return undefined;
  const input: JsonObject = {};
  if (end === 1) return input;
  let at = 1;
  for (;;) {
    const keyEnd = plainStringEnd(text, at);
    if (keyEnd < 0) return undefined;
    const first = text.charCodeAt(at + 1);
    if (first >= ZERO && first <= NINE) return undefined;
    const key = text.slice(at + 1, keyEnd);
    if (key === "__proto__" || HAS_OWN.call(input, key)) return undefined;
    at = keyEnd + 1;
    if (text.charCodeAt(at) !== COLON) return undefined;
    at += 1;
    const valueEnd = flatValueEnd(text, at);
    if (valueEnd < 0) return undefined;
    input[key] = flatValue(text, at, valueEnd);
    at = valueEnd;
    const next = text.charCodeAt(at);
    if (next === CLOSE_BRACE) return at === end ? input : undefined;
    if (next !== COMMA) return undefined;
    at += 1;
  }
}

/** The position after the flat value at `at` (see {@link flatArguments}), -1 for another. */
function flatValueEnd(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === QUOTE) {
    const close = plainStringEnd(text, at);
    return close < 0 ? -1 : close + 1;
  }
  if (code === 116) return text.startsWith("true", at) ? at + 4 : -1;
  if (code === 102) return text.startsWith("false", at) ? at + 5 : -1;
  if (code === 110) return text.startsWith("null", at) ? at + 4 : -1;
  const from = code === MINUS ? at + 1 : at;
  let end = from;
  for (; end < text.length; end += 1) {
    const digit = text.charCodeAt(end);
    if (digit < ZERO || digit > NINE) break;
  }
  const digits = end - from;
  if (digits === 0 || digits > MAX_DIGITS) return -1;
  // A leading zero (`01`) is not JSON's way to write a number, and `-0` is written `0`.
  if (text.charCodeAt(from) === ZERO && (digits > 1 || from > at)) return -1;
  return end;
}

/** The value of the flat value text from `at` to `end` ({@link flatValueEnd}). */
function flatValue(text: string, at: number, end: number): string | number | boolean | null {
  const code = text.charCodeAt(at);
  if (code === QUOTE) return text.slice(at + 1, end - 1);
  if (code === 116) return true;
  if (code === 102) return false;
  if (code === 110) return null;
  return Number(text.slice(at, end));
}

/**
 * The position of the quote closing the string opened at `open`, when it holds printable ASCII
 * alone, no `"` or `\` (what `JSON.stringify` writes as it is); -1 otherwise.
 */
function plainStringEnd(text: string, open: number): number {
  if (text.charCodeAt(open) !== QUOTE) return -1;
  for (let at = open + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) return at;
    if (code < LOWEST_PRINTABLE || code > HIGHEST_PRINTABLE || code === BACKSLASH) return -1;
  }
  return -1;
}
