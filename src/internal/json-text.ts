/**
 * Whether `text` is exactly `JSON.stringify(value)`, for a `value` that `JSON.parse` made, found
 * without making that text (a tool call's `arguments` is kept beside its input only when it is
 * not; the check runs on every call of every conversation a stateless server is sent).
 * `undefined` when it cannot tell at a glance: a number other than a safe integer, a string
 * holding a character JSON escapes, nesting past 64 levels, an object with a `toJSON`
 * (inherited, say): compare the text then.
 */
export function isStringifyOf(value: unknown, text: string): boolean | undefined {
  const end = match(value, text, 0, 0);
  if (end === UNSURE) return undefined;
  return end === text.length;
}

/** What a match returns instead of the position after the value. */
const MISMATCH = -1;
const UNSURE = -2;

const MAX_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;

/** The position in `text` after `value` written at `at` as `JSON.stringify` writes it. */
function match(value: unknown, text: string, at: number, depth: number): number {
  switch (typeof value) {
    case "string":
      return matchString(value, text, at);
    case "number":
      return matchNumber(value, text, at);
    case "boolean":
      return matchWord(value ? "true" : "false", text, at);
    case "object":
      if (value === null) return matchWord("null", text, at);
      if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function")
        return UNSURE;
      return Array.isArray(value)
        ? matchArray(value, text, at, depth)
        : matchObject(value as Record<string, unknown>, text, at, depth);
    default:
      return UNSURE;
  }
}

function matchWord(word: string, text: string, at: number): number {
  return text.startsWith(word, at) ? at + word.length : MISMATCH;
}

/** A string without a character JSON escapes (control characters, `"`, `\`, surrogates) is written as it is, quoted. */
function matchString(value: string, text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return MISMATCH;
  let position = at + 1;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === QUOTE || code === BACKSLASH || (code >= 0xd800 && code <= 0xdfff))
      return UNSURE;
    if (text.charCodeAt(position) !== code) return MISMATCH;
    position += 1;
  }
  return text.charCodeAt(position) === QUOTE ? position + 1 : MISMATCH;
}

/** A safe integer is written as its decimal digits (`-0` as `0`). */
function matchNumber(value: number, text: string, at: number): number {
  if (!Number.isSafeInteger(value)) return UNSURE;
  let rest = value;
  let position = at;
  if (rest < 0) {
    if (text.charCodeAt(position) !== 45) return MISMATCH;
    position += 1;
    rest = -rest;
  }
  let digits = 1;
  for (let power = 10; power <= rest; power *= 10) digits += 1;
  for (let index = digits - 1; index >= 0; index -= 1) {
    if (text.charCodeAt(position + index) !== 48 + (rest % 10)) return MISMATCH;
    rest = Math.floor(rest / 10);
  }
  return position + digits;
}

function matchArray(value: readonly unknown[], text: string, at: number, depth: number): number {
  if (text.charCodeAt(at) !== 91) return MISMATCH;
  let position = at + 1;
  for (let index = 0; index < value.length; index += 1) {
    if (index > 0) {
      if (text.charCodeAt(position) !== COMMA) return MISMATCH;
      position += 1;
    }
    position = match(value[index], text, position, depth + 1);
    if (position < 0) return position;
  }
  return text.charCodeAt(position) === 93 ? position + 1 : MISMATCH;
}

function matchObject(
  value: Record<string, unknown>,
  text: string,
  at: number,
  depth: number,
): number {
  if (text.charCodeAt(at) !== 123) return MISMATCH;
  let position = at + 1;
  let first = true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = value[key];
    // What JSON.stringify leaves out (JSON.parse makes none of it).
    if (item === undefined || typeof item === "function" || typeof item === "symbol") return UNSURE;
    if (!first) {
      if (text.charCodeAt(position) !== COMMA) return MISMATCH;
      position += 1;
    }
    first = false;
    position = matchString(key, text, position);
    if (position < 0) return position;
    if (text.charCodeAt(position) !== COLON) return MISMATCH;
    position = match(item, text, position + 1, depth + 1);
    if (position < 0) return position;
  }
  return text.charCodeAt(position) === 125 ? position + 1 : MISMATCH;
}
