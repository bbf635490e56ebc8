import * as z from "zod/mini";
import { headEnd, tailStart } from "../internal/whole-characters.js";
import { parseOrThrow, ValidationError } from "./errors.js";
import { POSITIVE_INT_SCHEMA } from "./option-schemas.js";
import { tokensToChars } from "./tokens.js";

/**
 * A recall answer is one page of what its handle stands for: at most an eighth of the window,
 * so fetching back a trim's hundreds of messages cannot undo the compaction in one answer. The
 * page ends saying how to ask for the next one.
 */

/** The share of the window one recall answer may take. */
export const RECALL_PAGE_SHARE = 1 / 8;
/** The tokens of one recall answer when the window is not known. */
export const RECALL_PAGE_TOKENS = 4000;
/** The fewest tokens a page holds, whatever the window. */
const MIN_PAGE_TOKENS = 500;
/** A page breaks at a line end in its last fifth, when there is one. */
const LINE_BREAK_SHARE = 0.2;

/** Tokens one recall answer may take in a window of `contextLimit` (an eighth; 4,000 unknown). */
export function recallPageTokens(contextLimit: number | undefined): number {
  if (contextLimit === undefined || !Number.isFinite(contextLimit) || contextLimit <= 0)
    return RECALL_PAGE_TOKENS;
  return Math.max(MIN_PAGE_TOKENS, Math.floor(contextLimit * RECALL_PAGE_SHARE));
}

/**
 * Where each page of `text` starts, for pages of at most `pageChars` characters: a page ends at
 * a line end in its last fifth when there is one, else where the room ends. Linear in the text.
 */
function pageStarts(text: string, pageChars: number): number[] {
  const starts = [0];
  let start = 0;
  while (text.length - start > pageChars) {
    const end = start + pageChars;
    const newline = text.lastIndexOf("\n", end - 1);
    // Never between the halves of a surrogate pair (a page then holds a lone one: refused).
    const cut = headEnd(text, end) > start ? headEnd(text, end) : tailStart(text, end);
    const next = newline >= end - Math.floor(pageChars * LINE_BREAK_SHARE) ? newline + 1 : cut;
    starts.push(next);
    start = next;
  }
  return starts;
}

/** The line that ends a page of several: where it is, and how to ask for the next one. */
function pageFooter(handle: string, page: number, pages: number, toolName: string): string {
  const next =
    page < pages
      ? ` Call ${toolName} with {"handle": ${JSON.stringify(handle)}, "page": ${page + 1}} for the next page.`
      : " This is the last page.";
  return `\n[recall ${handle}: page ${page} of ${pages}.${next}]`;
}

/** Room a page leaves for its footer. */
const FOOTER_ROOM = 200;

/**
 * Page `page` (from 1) of `text`, what `handle` stands for, within `pageTokens`: the text alone
 * when it fits one page, else the page with a footer naming the next page's call.
 * @throws {ValidationError} at `page` when it is not a whole number ≥ 1 or past the last page.
 */
export function recallPage(
  text: string,
  options: { handle: string; page?: unknown; pageTokens: number; toolName: string },
): string {
  const { page } = parseOrThrow(
    z.object({ page: POSITIVE_INT_SCHEMA }),
    { page: options.page ?? 1 },
    "recall",
  );
  const pageChars = Math.max(1, tokensToChars(options.pageTokens) - FOOTER_ROOM);
  if (text.length <= pageChars && page === 1) return text;
  const starts = pageStarts(text, pageChars);
  if (page > starts.length) {
    throw new ValidationError("recall", [
      {
        path: ["page"],
        message: `must be at most ${starts.length}: ${options.handle} has ${starts.length} page${starts.length === 1 ? "" : "s"}`,
      },
    ]);
  }
  const body = text.slice(starts[page - 1], starts[page] ?? text.length);
  if (starts.length === 1) return body;
  return body + pageFooter(options.handle, page, starts.length, options.toolName);
}
