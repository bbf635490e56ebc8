import { isDigit } from "../internal/digits.js";

/** How many paths one text gives at most: the first ones seen. */
export const MAX_MENTIONS = 8;

/**
 * How much of a long text is read for paths: its head and its tail, as a clamp keeps them (a
 * listing's or a trace's paths sit there), so a stateless server that masks every old result
 * on each request does a bounded amount of work per result.
 */
export const SCAN_HEAD_CHARS = 8192;
export const SCAN_TAIL_CHARS = 2048;

/** The longest token taken for a path; a longer run of path characters is no path. */
const MAX_MENTION_LENGTH = 200;
/** The longest extension after a path's final dot (`ts`, `json`, `ipynb`, `markdown`). */
const MAX_EXTENSION_LENGTH = 8;

const SLASH = 47;
const DOT = 46;

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Letters, digits and `_ - . / @ + ~`: what a file path is made of, punctuation aside. */
function isPathCharacter(code: number): boolean {
  return (
    isLetter(code) ||
    isDigit(code) ||
    code === 95 ||
    code === 45 ||
    code === DOT ||
    code === SLASH ||
    code === 64 ||
    code === 43 ||
    code === 126
  );
}

/**
 * Where the path a run of path characters names ends, or -1 when it names none (`firstSlash`,
 * the run's first `/`): it holds a `/` (not as `//` at its start, a URL's host), and its last part ends in an extension, 1–8
 * letters and digits with a letter among them, after a dot. A sentence's final dots are not
 * part of it.
 */
function mentionEnd(text: string, start: number, end: number, firstSlash: number): number {
  let last = end;
  while (last > start && text.charCodeAt(last - 1) === DOT) last -= 1;
  if (last - start < 3 || last - start > MAX_MENTION_LENGTH) return -1;
  if (text.charCodeAt(start) === SLASH && text.charCodeAt(start + 1) === SLASH) return -1;
  let letter = false;
  let index = last - 1;
  for (; index >= start && last - index <= MAX_EXTENSION_LENGTH + 1; index -= 1) {
    const code = text.charCodeAt(index);
    if (code === DOT) break;
    if (isLetter(code)) letter = true;
    else if (!isDigit(code)) return -1;
  }
  // The loop stops at the dot, or one past the longest extension (then it is too long).
  if (index < start || last - index > MAX_EXTENSION_LENGTH + 1) return -1;
  if (text.charCodeAt(index) !== DOT || index === last - 1 || !letter) return -1;
  return firstSlash < index ? last : -1;
}

/** Whether `text` holds one of `mentions` from `start` to `end`: a path seen again, not copied. */
function isAmong(mentions: readonly string[], text: string, start: number, end: number): boolean {
  for (const mention of mentions)
    if (mention.length === end - start && text.startsWith(mention, start)) return true;
  return false;
}

/**
 * The file paths a text mentions (a tool's output: grep hits, stack traces, listings), first
 * seen first, each once, at most `limit`: runs of path characters up to 200 long that hold a
 * `/` and end in an extension (`src/a/b.ts`, `/repo/x.py` from `/repo/x.py:12:5`). Paths in
 * `skip` are passed over without counting. One pass over the text, linear in its length; a
 * text longer than {@link SCAN_HEAD_CHARS} + {@link SCAN_TAIL_CHARS} is read at its head and
 * tail only.
 */
export function pathMentions(
  text: string,
  limit = MAX_MENTIONS,
  skip: ReadonlySet<string> = new Set(),
): string[] {
  const found: string[] = [];
  // A long text is read at its head and its tail only (the middle is skipped whole, from the
  // end of the run it starts in, so no path is taken from a cut run).
  const long = text.length > SCAN_HEAD_CHARS + SCAN_TAIL_CHARS;
  const headEnd = long ? SCAN_HEAD_CHARS : text.length;
  let tailStart = text.length - SCAN_TAIL_CHARS;
  if (long && isPathCharacter(text.charCodeAt(tailStart - 1)))
    while (tailStart < text.length && isPathCharacter(text.charCodeAt(tailStart))) tailStart += 1;
  // Only a run holding a `/` can be a path: the scan jumps from slash to slash (`indexOf`,
  // much faster than a look at each character) and widens each to its run; the text before
  // `index` is done, so each character is looked at a bounded number of times.
  let index = 0;
  while (found.length < limit) {
    let slash = text.indexOf("/", index);
    if (long && slash >= headEnd && slash < tailStart) {
      index = Math.max(index, tailStart);
      slash = text.indexOf("/", index);
    }
    if (slash === -1) break;
    let start = slash;
    while (start > index && isPathCharacter(text.charCodeAt(start - 1))) start -= 1;
    index = slash + 1;
    // A run from the head is read at most a path's length past it: a longer one is no path.
    const stop =
      slash < headEnd ? Math.min(text.length, headEnd + MAX_MENTION_LENGTH + 1) : text.length;
    while (index < stop && isPathCharacter(text.charCodeAt(index))) index += 1;
    if (index === stop && stop < text.length && isPathCharacter(text.charCodeAt(index))) {
      index = Math.max(index, tailStart);
      continue;
    }
    const end = mentionEnd(text, start, index, slash);
    if (end === -1 || isAmong(found, text, start, end)) continue;
    if (skip.size > 0 && skip.has(text.slice(start, end))) continue;
    found.push(text.slice(start, end));
  }
  return found;
}

/** How a placeholder lists the paths of what it replaced: ` (mentions: a.ts, b/c.py)`. */
export const MENTIONS_OPEN = " (mentions: ";

/** The longest list {@link withMentions} adds: the opening, the paths and their commas, `)`. */
export const MAX_MENTIONS_SUFFIX_LENGTH =
  MENTIONS_OPEN.length + MAX_MENTIONS * (MAX_MENTION_LENGTH + 2) + 1;

/**
 * `placeholder` followed by the paths `original` mentions that it does not name itself
 * (` (mentions: src/a.ts, src/b.ts)`), or `placeholder` alone when there are none. Applied
 * to its own output it gives the same text, so a placeholder is recognised as one.
 */
export function withMentions(placeholder: string, original: string): string {
  const named = new Set(pathMentions(placeholder, 4 * MAX_MENTIONS));
  const mentions = pathMentions(original, MAX_MENTIONS, named);
  return mentions.length === 0
    ? placeholder
    : `${placeholder}${MENTIONS_OPEN}${mentions.join(", ")})`;
}
