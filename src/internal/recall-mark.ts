import { digitsEnd, isDigit } from "./digits.js";

/**
 * How a compaction's placeholder names the recall handle of what it replaced:
 * `[Content redacted for context management] [recall r7-3f2a]`. A handle is `r`, a counter,
 * and the session's four-hex-digit tag.
 */
export const RECALL_MARK = " [recall ";

/**
 * The most digits a handle's number has: the library's are below 2^53 (16 digits), and every
 * reader of a mark or a handle below stops there.
 */
const MAX_HANDLE_DIGITS = 16;

const HANDLE = `r\\d{1,${MAX_HANDLE_DIGITS}}-[0-9a-f]{4}`;

/** A whole recall handle, e.g. `r7-3f2a`. */
export const RECALL_HANDLE_PATTERN = new RegExp(`^${HANDLE}$`);

const MARK_AT_END = new RegExp(`\\[recall (${HANDLE})\\]$`);

/** The handle a placeholder text names at its end, if any. */
export function recallHandleIn(text: string): string | undefined {
  return MARK_AT_END.exec(text)?.[1];
}

/**
 * The number of each recall mark `[recall r<number>-<tag>]` in `text` with this `tag`, found
 * with `indexOf` (linear in the text, whatever it holds).
 */
export function recallNumbersIn(text: string, tag: string): number[] {
  const numbers: number[] = [];
  const start = "[recall r";
  const end = `-${tag}]`;
  for (let at = text.indexOf(start); at !== -1; at = text.indexOf(start, at + start.length)) {
    const digits = at + start.length;
    const stop = digitsEnd(text, digits, MAX_HANDLE_DIGITS);
    if (stop > digits && text.startsWith(end, stop)) numbers.push(Number(text.slice(digits, stop)));
  }
  return numbers;
}

/**
 * Where the recall mark ({@link RECALL_MARK}, a handle, `]`) that starts at `at` in `text`
 * ends; -1 when none starts there. Read with `startsWith` and bounded scans.
 */
export function recallMarkEnd(text: string, at: number): number {
  const start = `${RECALL_MARK}r`;
  if (!text.startsWith(start, at)) return -1;
  const digits = at + start.length;
  const dash = digitsEnd(text, digits, MAX_HANDLE_DIGITS);
  if (dash === digits || text.charCodeAt(dash) !== 45) return -1;
  let end = dash + 1;
  while (end < dash + 5 && (isDigit(text.charCodeAt(end)) || isHexLetter(text.charCodeAt(end))))
    end += 1;
  return end === dash + 5 && text.charCodeAt(end) === 93 ? end + 1 : -1;
}

function isHexLetter(code: number): boolean {
  return code >= 97 && code <= 102;
}

/** The longest recall mark: {@link RECALL_MARK}, `r`, a counter of up to 16 digits, `-`, the tag, `]`. */
export const MAX_RECALL_MARK_LENGTH = RECALL_MARK.length + 1 + MAX_HANDLE_DIGITS + 1 + 4 + 1;

/**
 * Whether `text` is `placeholder`, alone or followed by the recall mark the archive adds: a
 * result compacted before. Lengths are compared first, so a long original costs nothing.
 */
export function isPlaceholderText(text: string, placeholder: string): boolean {
  const extra = text.length - placeholder.length;
  if (extra === 0) return text === placeholder;
  return (
    extra > RECALL_MARK.length &&
    extra <= MAX_RECALL_MARK_LENGTH &&
    text.startsWith(RECALL_MARK, placeholder.length) &&
    text.startsWith(placeholder)
  );
}
