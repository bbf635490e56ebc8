import type { JsonObject, JsonValue } from "../core/message.js";
import { flatArguments } from "./flat-arguments.js";
import { checkedJsonObjectLength } from "./json-length.js";
import { isStringifyOf } from "./json-text.js";
import { MAX_JSON_DEPTH } from "./json-value.js";
import { isPlainObject } from "./plain-object.js";

/**
 * The input a tool call's JSON `arguments` text stands for, and whether the text must be kept
 * beside it to come back byte for byte (it is not exactly the input's `JSON.stringify`, or it is
 * not a JSON object at all: a model's malformed arguments stand for an empty input).
 */
export function parseToolArguments(raw: string): { input: JsonObject; keep: boolean } {
  return readToolArguments(raw) ?? { input: {}, keep: true };
}

/**
 * {@link parseToolArguments} for a text that is a JSON object; `undefined` for any other, and for
 * one nesting deeper than `MAX_JSON_DEPTH` (no session takes such an input, and every walk over
 * it would risk the stack: it is kept as text, as malformed arguments are). The text is compared
 * with the input in place ({@link isStringifyOf}), the input's JSON written only when that
 * cannot tell; a model's usual flat arguments are read in one pass ({@link flatArguments}).
 */
export function readToolArguments(raw: string): { input: JsonObject; keep: boolean } | undefined {
  const flat = flatArguments(raw);
  if (flat !== undefined) return { input: flat, keep: false };
  if (nestsTooDeep(raw)) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isPlainObject(input)) return undefined;
  const keep = !(isStringifyOf(input, raw) ?? JSON.stringify(input) === raw);
  // A number JSON holds but a double cannot (`1e400` reads as Infinity): kept as text, as
  // malformed arguments are (an input must be JSON values).
  if (keep && checkedJsonObjectLength(input) < 0) return undefined;
  return { input: input as JsonObject, keep };
}

/**
 * The `arguments` text to send for `input`: the kept original while it still stands for the
 * input (a compaction may have cleared the input since), else the input's JSON.
 */
export function toolArgumentsText(input: JsonObject, raw: JsonValue | undefined): string {
  const current = JSON.stringify(input);
  if (typeof raw !== "string") return current;
  const { input: original } = parseToolArguments(raw);
  return JSON.stringify(original) === current ? raw : current;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Whether the JSON `text` nests objects and arrays more than `MAX_JSON_DEPTH` levels deep: one
 * pass counting brackets outside strings (each string skipped by `indexOf`), no recursion, so a
 * text of any depth is answered. A text too short to hold that many pairs is not read.
 */
export function nestsTooDeep(text: string): boolean {
  if (text.length <= 2 * MAX_JSON_DEPTH) return false;
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      // An unterminated string: not JSON, which `JSON.parse` tells.
      if (at < 0) return false;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/**
 * The position of the quote closing the string opened at `open`, `-1` when none does. A quote
 * after an odd run of backslashes is escaped; each run is counted once (it ends at the quote
 * before it), so the search stays linear in the text.
 */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}
