import { digitsEnd } from "../internal/digits.js";
import { recallMarkEnd } from "../internal/recall-mark.js";
import type { ContentBlock } from "./message.js";

// The text format of what a summary message holds: read and written by compactors and by
// every adapter that converts messages (so none of them imports a compactor).

/** The prefix of the summary message's text. */
export const SUMMARY_PREFIX = "[Previous conversation summary]: ";

/** The prefix of a user message kept verbatim in the summary message. */
export const EARLIER_USER_MESSAGE_PREFIX = "[Earlier user message]: ";

/** The first line of the notice the last resort leaves where it removed messages (turn `u0`). */
export const TRIM_NOTICE = "[Earlier messages were removed to fit the context window]";

/** The heading of the ledger block a summary message or notice holds. */
export const LEDGER_HEADING =
  "Files the agent touched (from its tool calls; the library's record):";

/** How the outlines block's heading starts, now and as written before. */
const OUTLINE_HEADING_START =
  "Outlines of files read earlier (each file's declaration lines as the read showed them, newest read first; ";

/**
 * The heading of a notice's outlines block. It tells the model to recall a read only where a
 * handle stands for it: a path without an archive names none (the heading written before told
 * it to recall one anyway; it still reads back, as any first line that starts the same).
 */
export const OUTLINE_HEADING = `${OUTLINE_HEADING_START}recall a read's handle, if it has one, for the whole text):`;

/** The length of the outlines heading `text` starts with (its first line), or -1. */
export function outlineHeadingLength(text: string): number {
  if (!text.startsWith(OUTLINE_HEADING_START)) return -1;
  const end = text.indexOf("\n", OUTLINE_HEADING_START.length);
  return end === -1 ? text.length : end;
}

/** The heading of the directives block a notice or summary message holds. */
export const DIRECTIVES_HEADING =
  "The user's directives from earlier messages (their words, oldest first; the library's record):";

/** The heading of the facts section a summary message holds beside the summary. */
export const SECTION_HEADING = "Facts kept from the folded part:";

const ARCHIVED_NOTE_START = "[The ";
const ARCHIVED_NOTE_END = " earlier messages this stands for are archived.]";

/**
 * The block a summary or notice ends with when the messages it stands for were archived (the
 * archive's recall mark follows it).
 */
export function archivedNote(count: number): string {
  return `${ARCHIVED_NOTE_START}${count}${ARCHIVED_NOTE_END}`;
}

/**
 * Where the archive's note ({@link archivedNote}) and its recall mark, starting at `at` in
 * `text`, end; -1 when they do not start there (a note without its mark is the user's words).
 * Read with `startsWith` and bounded scans.
 */
function archivedNoteEnd(text: string, at: number): number {
  if (!text.startsWith(ARCHIVED_NOTE_START, at)) return -1;
  const digits = at + ARCHIVED_NOTE_START.length;
  const afterDigits = digitsEnd(text, digits, 16);
  if (afterDigits === digits || !text.startsWith(ARCHIVED_NOTE_END, afterDigits)) return -1;
  return recallMarkEnd(text, afterDigits + ARCHIVED_NOTE_END.length);
}

/** Where the spaces, tabs and line breaks from `at` in `text` end. */
function spaceEnd(text: string, at: number): number {
  let end = at;
  for (let code = text.charCodeAt(end); code === 32 || code === 9 || code === 10 || code === 13; )
    code = text.charCodeAt(++end);
  return end;
}

/** Whether `text` is the archive's note and its mark alone (white space after it aside). */
function isArchivedNote(text: string): boolean {
  const end = archivedNoteEnd(text, 0);
  return end !== -1 && spaceEnd(text, end) === text.length;
}

/** What a block after the first of a summary or notice starts with: it is the library's. */
const PART_STARTS = [
  EARLIER_USER_MESSAGE_PREFIX,
  LEDGER_HEADING,
  OUTLINE_HEADING_START,
  DIRECTIVES_HEADING,
  SECTION_HEADING,
];

/** Whether a text is the last resort's notice: its first line alone, or its blocks joined after it. */
export function isTrimNoticeText(text: string): boolean {
  return text === TRIM_NOTICE || text.startsWith(`${TRIM_NOTICE}\n`);
}

/** Whether a text leads what the library wrote in place of earlier messages: a summary, or the last resort's notice. */
function leadsSummaryText(text: string): boolean {
  return text.startsWith(SUMMARY_PREFIX) || isTrimNoticeText(text);
}

/**
 * Whether a block leads a message the library wrote in place of earlier ones (turn `u0`): a
 * summary, or the last resort's notice. A converter reads such a message back as the summary
 * turn, so the next compaction folds it as the session would, not as the user's words.
 */
export function leadsSummary(block: ContentBlock | undefined): boolean {
  return block?.type === "text" && leadsSummaryText(block.text);
}

/** Whether a block after the first of a summary or notice is the library's: a record, or the user's words it keeps. */
export function isSummaryPart(block: ContentBlock): boolean {
  if (block.type !== "text") return false;
  const { text } = block;
  return PART_STARTS.some((start) => text.startsWith(start)) || isArchivedNote(text);
}

/** Whether a block after the first of a summary or notice starts at `at`: a record's heading, kept words, the archive's note. */
function startsPart(text: string, at: number): boolean {
  return (
    PART_STARTS.some((start) => text.startsWith(start, at)) || archivedNoteEnd(text, at) !== -1
  );
}

/** Whether a block is a summary message's text: its first block, or the user's words it keeps. */
export function isSummaryText(block: ContentBlock | undefined): boolean {
  return (
    leadsSummary(block) ||
    (block?.type === "text" && block.text.startsWith(EARLIER_USER_MESSAGE_PREFIX))
  );
}

/**
 * {@link isSummaryText} for a reader that keeps each message whole (the AI SDK's, LangChain's):
 * not a notice's first line with other words after it, which the library never writes (its
 * notice's first block is the line alone; its records follow, each with its heading). Such a
 * text is the user's: read as a summary, the user's words in it would be folded away.
 */
export function isWholeSummaryText(block: ContentBlock | undefined): boolean {
  if (!isSummaryText(block)) return false;
  const tail = block?.type === "text" ? noticeTail(block.text) : undefined;
  return tail === undefined || tail === "" || startsLibraryBlock(tail, 0);
}

/**
 * What follows a notice's first line in `text` (the newlines after it left out), or
 * `undefined` when `text` is no notice.
 */
function noticeTail(text: string): string | undefined {
  if (!isTrimNoticeText(text)) return undefined;
  let at = TRIM_NOTICE.length;
  while (text.charCodeAt(at) === 10) at += 1;
  return text.slice(at);
}

/**
 * A user message's blocks that start with a summary or notice ({@link leadsSummary}), split into
 * the messages the library wrote (each summary or notice with the records and the user's words
 * after it: a writer may have joined a summary, a notice and the first kept request into one
 * message, a client may have joined their texts into one) and what follows (the first kept
 * request, a message of its own). One whose rest holds tool results is left whole (they must
 * lead a user message).
 */
export function splitSummary(blocks: readonly ContentBlock[]): {
  library: ContentBlock[][];
  rest: ContentBlock[];
} {
  const expanded = joinedExpanded(blocks);
  const library: ContentBlock[][] = [];
  let end = 0;
  // A summary leads; a notice may follow its run (the library writes none after a notice or the
  // user's words): a summary's prefix further on is the user's words, read as they are.
  while (
    end < expanded.length &&
    (end === 0 ? leadsSummary(expanded[0]) : isTrimNoticeBlock(expanded[end]!))
  ) {
    const start = end;
    end += 1;
    while (end < expanded.length && isSummaryPart(expanded[end]!)) end += 1;
    library.push(expanded.slice(start, end));
  }
  const rest = expanded.slice(end);
  if (rest.some((block) => block.type === "tool_result"))
    return { library: [blocks.slice()], rest: [] };
  return { library, rest };
}

/**
 * `blocks` with each of the library's texts a client or writer joined into one (a blank line
 * between) cut back into its blocks' texts; the same array when there is none.
 */
function joinedExpanded(blocks: readonly ContentBlock[]): readonly ContentBlock[] {
  let expanded: ContentBlock[] | undefined;
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index]!;
    const texts =
      block.type === "text" && (leadsSummary(block) || startsPart(block.text, 0))
        ? splitJoinedSummary(block.text)
        : undefined;
    if (texts !== undefined && texts.length > 1) {
      expanded ??= blocks.slice(0, index);
      for (const text of texts) expanded.push({ type: "text", text });
    } else expanded?.push(block);
  }
  return expanded ?? blocks;
}

/**
 * A summary's or notice's text as one string (a Chat Completions writer joins a message's plain
 * text blocks with a blank line; a client may join them with a blank line or a line break)
 * back as its blocks' texts: cut before each blank line followed by what a library block
 * starts with, and before the archive's note after a line break. Other text comes back whole.
 */
function splitJoinedSummary(text: string): string[] {
  const texts: string[] = [];
  let start = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    // After a blank line, any block of the library's; after a single line break, the archive's
    // note only: it ends the library's text, whatever a client joined the parts with.
    const blank = at > start && text.charCodeAt(at - 1) === 10;
    if (!(blank ? startsLibraryBlock(text, at + 1) : archivedNoteEnd(text, at + 1) !== -1))
      continue;
    texts.push(text.slice(start, blank ? at - 1 : at));
    start = at + 1;
  }
  texts.push(text.slice(start));
  // A notice's first line is a block of its own, and so is the archive's note (with its mark):
  // what a client or writer joined after either, when no record's heading starts it, is the
  // first kept request (or the user's own words).
  const blocks: string[] = [];
  for (const each of texts) {
    const tail = noticeTail(each);
    if (tail !== undefined && tail.length > 0) {
      blocks.push(TRIM_NOTICE, tail);
      continue;
    }
    const note = archivedNoteEnd(each, 0);
    const rest = note === -1 ? -1 : spaceEnd(each, note);
    if (note === -1 || rest === note || rest === each.length) blocks.push(each);
    else blocks.push(each.slice(0, note), each.slice(rest));
  }
  return blocks;
}

/** Whether a block is the last resort's notice. */
function isTrimNoticeBlock(block: ContentBlock): boolean {
  return block.type === "text" && isTrimNoticeText(block.text);
}

/**
 * Whether what starts at `at` in `text` starts a block of the library's after the first (a
 * summary is only ever first: its prefix further on is the user's words).
 */
/**
 * `text` (a summarizer's reply) with a space before each line that would read as a block of the
 * library's own (`[Earlier user message]: `, a record's heading, the archive's note, the trim
 * notice): a summary written back and read again (a stateless server's history, a resumed
 * session) is cut at such lines, and the summarizer's claims would become the user's words.
 */
export function withoutLibraryBlocks(text: string): string {
  let out: string | undefined;
  let start = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    if (!startsLibraryBlock(text, at + 1)) continue;
    out = `${out ?? ""}${text.slice(start, at + 1)} `;
    start = at + 1;
  }
  return out === undefined ? text : out + text.slice(start);
}

function startsLibraryBlock(text: string, at: number): boolean {
  if (text.startsWith(TRIM_NOTICE, at)) {
    const after = text.charCodeAt(at + TRIM_NOTICE.length);
    return Number.isNaN(after) || after === 10;
  }
  return startsPart(text, at);
}
