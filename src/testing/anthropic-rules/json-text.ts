/**
 * The Messages API's check on a request body's text before it reads it as JSON, which
 * `JSON.parse` does not make: a `\u` escape of a lone UTF-16 surrogate. The API answers 400
 * `invalid_request_error` "The request body is not valid JSON: <reason>: line L column C (char P)"
 * (R: anthropics/claude-code#3277, #4599, #6199; link-assistant/hive-mind#1204). The reasons and
 * where they point are those of the yyjson reader behind it (the same three texts, lower case):
 * - a low surrogate escape (`\udc00`-`\udfff`) not right after a high one: "invalid high
 *   surrogate in string", at the escape's backslash;
 * - a high surrogate escape (`\ud800`-`\udbff`) not followed by another `\u` escape: "no low
 *   surrogate in string", right after it;
 * - a high surrogate escape followed by a `\u` escape that is not a low surrogate: "invalid low
 *   surrogate in string", at that escape's backslash.
 * The position is counted in characters (code points) of the body, as Python's JSONDecodeError
 * writes it: `char` from 0, `line` and `column` from 1.
 */

const HIGH_FIRST = 0xd800;
const LOW_FIRST = 0xdc00;
const LOW_LAST = 0xdfff;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/** The code unit of a `\uXXXX` escape whose backslash is at `at`, or -1 when it is not one. */
function escapedUnit(text: string, at: number): number {
  if (text.charCodeAt(at) !== BACKSLASH || text.charCodeAt(at + 1) !== LETTER_U) return -1;
  const hex = text.slice(at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
}

/** "line L column C (char P)" of the code unit at `at`, P counted in code points. */
function positionOf(text: string, at: number): string {
  let char = 0;
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < at; index += 1) {
    const unit = text.charCodeAt(index);
    // The second half of a surrogate pair written as such adds no character.
    const pairTail =
      unit >= LOW_FIRST &&
      unit <= LOW_LAST &&
      index > 0 &&
      text.charCodeAt(index - 1) >= HIGH_FIRST &&
      text.charCodeAt(index - 1) < LOW_FIRST;
    if (pairTail) continue;
    char += 1;
    if (unit === 0x0a) {
      line += 1;
      lineStart = char;
    }
  }
  return `line ${line} column ${char - lineStart + 1} (char ${char})`;
}

/**
 * The 400 message the API answers a body holding a lone surrogate escape with, or `undefined`.
 * One pass over the text: every backslash in valid JSON is in a string, so the escapes are read
 * in order, two characters for a short one and six for `\uXXXX`.
 */
export function jsonTextProblem(text: string): string | undefined {
  let index = 0;
  while (index < text.length) {
    if (text.charCodeAt(index) !== BACKSLASH) {
      index += 1;
      continue;
    }
    const unit = escapedUnit(text, index);
    if (unit === -1) {
      index += 2;
      continue;
    }
    if (unit < HIGH_FIRST || unit > LOW_LAST) {
      index += 6;
      continue;
    }
    if (unit >= LOW_FIRST) return invalid("invalid high surrogate in string", text, index);
    const next = index + 6;
    if (text.charCodeAt(next) !== BACKSLASH || text.charCodeAt(next + 1) !== LETTER_U) {
      return invalid("no low surrogate in string", text, next);
    }
    const low = escapedUnit(text, next);
    // A malformed escape after it is the JSON reader's own error, not this one.
    if (low === -1) return undefined;
    if (low < LOW_FIRST || low > LOW_LAST) {
      return invalid("invalid low surrogate in string", text, next);
    }
    index = next + 6;
  }
  return undefined;
}

function invalid(reason: string, text: string, at: number): string {
  return `The request body is not valid JSON: ${reason}: ${positionOf(text, at)}`;
}
