/** How deep {@link isCanonicalJson} follows nesting, and how many keys it holds at once. */
const MAX_DEPTH = 32;
const MAX_KEYS = 64;

/** Scratch of {@link isCanonicalJson} (one call at a time: it never yields). */
const keyStarts = new Int32Array(MAX_KEYS);
const keyEnds = new Int32Array(MAX_KEYS);
/** Where each open object's keys start in {@link keyStarts} (-1: an open array). */
const firstKeys = new Int32Array(MAX_DEPTH);

/** The index of the next backslash in the text being read, at or after its current string. */
let nextEscape = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;
/** The longest run of digits that stays an exact integer and prints back as it was. */
const MAX_INTEGER_DIGITS = 15;

/**
 * Whether `text`, known to be valid JSON, is surely exactly what `JSON.stringify` writes for
 * what `JSON.parse` reads from it, told by one pass over its characters without parsing or
 * writing it: no whitespace, strings of characters written as they are (but `\"`, `\\`, `\b`,
 * `\f`, `\n`, `\r`, `\t`; no `\u` escapes, no surrogates), keys not starting with a digit
 * (integer keys move first) and distinct within their object, integers of at most 15 digits
 * (not `-0`), `true`, `false`, `null`. `false` when unsure (deeper than 32 levels, more than 64
 * keys open at once): the caller then compares the texts. `canonical-json.test.ts` holds it to
 * `JSON.stringify(JSON.parse(text)) === text`.
 */
export function isCanonicalJson(text: string): boolean {
  if (!isWellFormed(text)) return false;
  let depth = 0;
  let keys = 0;
  nextEscape = -1;
  let position = 0;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === QUOTE) {
      const end = stringEnd(text, position + 1);
      if (end < 0) return false;
      if (text.charCodeAt(end + 1) === COLON) {
        const first = text.charCodeAt(position + 1);
        if (keys === MAX_KEYS || (first >= DIGIT_0 && first <= DIGIT_9)) return false;
        keyStarts[keys] = position + 1;
        keyEnds[keys] = end;
        keys += 1;
      }
      position = end + 1;
    } else if (code === 0x7b || code === 0x5b) {
      // `{` or `[`
      if (depth === MAX_DEPTH) return false;
      firstKeys[depth] = code === 0x7b ? keys : -1;
      depth += 1;
      position += 1;
    } else if (code === 0x7d || code === 0x5d) {
      // `}` or `]`
      depth -= 1;
      const first = firstKeys[depth]!;
      if (first >= 0) {
        if (hasRepeatedKey(text, first, keys)) return false;
        keys = first;
      }
      position += 1;
    } else if (code === 0x2c || code === COLON) position += 1;
    else if (code === 0x74 || code === 0x6e)
      position += 4; // `true`, `null`
    else if (code === 0x66)
      position += 5; // `false`
    else {
      position = integerEnd(text, position);
      if (position < 0) return false;
    }
  }
  return true;
}

/**
 * Whether `text` has no lone surrogate (which `JSON.stringify` writes as a `\u` escape):
 * `String.prototype.isWellFormed` (Node 20; not in the ES2023 types).
 */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The index of the quote ending the string whose characters start at `from`; -1 when unsure.
 * `text` is well formed (no lone surrogate) and valid JSON (no raw control character), so
 * only escapes are looked at: a string without one ends at the next quote.
 */
function stringEnd(text: string, from: number): number {
  const quote = text.indexOf('"', from);
  if (quote < 0) return -1;
  // Where the next backslash is, found once for all the strings before it (linear in all).
  if (nextEscape < from) {
    nextEscape = text.indexOf("\\", from);
    if (nextEscape < 0) nextEscape = text.length;
  }
  if (nextEscape > quote) return quote;
  for (let position = nextEscape; position < text.length; position += 1) {
    const code = text.charCodeAt(position);
    if (code === QUOTE) return position;
    if (code !== BACKSLASH) continue;
    const next = text.charCodeAt(position + 1);
    // `"`, `\`, b, f, n, r, t: the escapes JSON.stringify writes (it writes \u only for
    // other control characters and lone surrogates, left to the caller's comparison).
    if (
      next !== QUOTE &&
      next !== BACKSLASH &&
      next !== 0x62 &&
      next !== 0x66 &&
      next !== 0x6e &&
      next !== 0x72 &&
      next !== 0x74
    )
      return -1;
    position += 1;
  }
  return -1;
}

/** Where the integer starting at `from` ends, when it prints back as written; -1 otherwise. */
function integerEnd(text: string, from: number): number {
  let position = text.charCodeAt(from) === MINUS ? from + 1 : from;
  const digits = position;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code < DIGIT_0 || code > DIGIT_9) break;
    position += 1;
  }
  const count = position - digits;
  if (count === 0 || count > MAX_INTEGER_DIGITS) return -1;
  // `-0` reads as -0, which prints as `0`; a leading zero is not JSON.
  if (text.charCodeAt(digits) === DIGIT_0 && (count > 1 || digits > from)) return -1;
  const next = text.charCodeAt(position);
  // A fraction or an exponent (`.`, `e`, `E`): left to the comparison.
  return next === 0x2e || next === 0x65 || next === 0x45 ? -1 : position;
}

/** Whether two of the keys `from` to `to` (of one object) are the same text. */
function hasRepeatedKey(text: string, from: number, to: number): boolean {
  for (let one = from + 1; one < to; one += 1)
    for (let other = from; other < one; other += 1)
      if (sameRange(text, keyStarts[one]!, keyEnds[one]!, keyStarts[other]!, keyEnds[other]!))
        return true;
  return false;
}

function sameRange(text: string, start: number, end: number, otherStart: number, otherEnd: number) {
  if (end - start !== otherEnd - otherStart) return false;
  for (let offset = 0; start + offset < end; offset += 1)
    if (text.charCodeAt(start + offset) !== text.charCodeAt(otherStart + offset)) return false;
  return true;
}
