/**
 * Where a cut of a text may fall: never between the two halves of a surrogate pair (an emoji,
 * a rare CJK character). A cut there leaves a lone surrogate, which `JSON.stringify` writes as
 * an escape the providers' JSON parsers refuse (400: "no low surrogate in string"), in every
 * later request that holds the text.
 */

/** Whether cutting `text` at `index` would split a surrogate pair. */
function splitsPair(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/** `index` as the end of a head of `text`: one back when it would split a pair. */
export function headEnd(text: string, index: number): number {
  return splitsPair(text, index) ? index - 1 : index;
}

/** `index` as the start of a tail of `text`: one on when it would split a pair. */
export function tailStart(text: string, index: number): number {
  return splitsPair(text, index) ? index + 1 : index;
}

/** The first `length` characters of `text` at most, never half a pair. */
export function headOf(text: string, length: number): string {
  return length >= text.length ? text : text.slice(0, headEnd(text, Math.max(0, length)));
}
