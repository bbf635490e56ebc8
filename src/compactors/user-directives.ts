import type { Message } from "../core/message.js";
import { DIRECTIVES_HEADING, EARLIER_USER_MESSAGE_PREFIX } from "../core/summary-format.js";
import { tokensToChars } from "../core/tokens.js";
import { headOf } from "../internal/whole-characters.js";
import { keptWhereSaidLast, userTextBlocks } from "./user-text.js";

/**
 * The user's directives as directives: the sentences of the user's messages that say what to
 * do or not do ("Never touch package-lock.json.", "Use tabs."), kept apart from the messages
 * they came in, so a rule stated early outlives any number of compactions even when its message
 * (with a pasted log around it) no longer fits the user's words budget. Read from the user's own
 * text only, never from a tool result or the summarizer's prose.
 */

export { DIRECTIVES_HEADING };

/** What opens each directive's line in the block. */
const LINE_OPEN = "- ";

/** Words that make a sentence a directive wherever they stand. */
const MARKERS = [
  "never",
  "always",
  "must",
  "mustn't",
  "don't",
  "do not",
  "dont",
  "should",
  "shouldn't",
  "avoid",
  "ensure",
  "make sure",
  "remember",
  "only",
  "prefer",
  "instead",
  "no longer",
  "from now on",
  "please",
  "required",
  "need to",
  "needs to",
  "cannot",
  "can't",
  "not allowed",
  "forbidden",
  "under no circumstances",
  "at all times",
];

/** Verbs that make a sentence a directive when they open it (an imperative). */
const IMPERATIVES = new Set(
  (
    "use keep add run make write check fix do leave put call return skip ignore follow stick " +
    "respect limit stop start try remove delete update rename move create install build test " +
    "commit push merge document log report ask wait read edit change replace include exclude " +
    "target support answer reply format name prefix suffix"
  ).split(" "),
);

const MIN_DIRECTIVE_CHARS = 6;
const MAX_DIRECTIVE_CHARS = 400;
/** The most directives a block is chosen from (the newest). */
const MAX_RENDERED = 5000;
/** The most characters of one message read for directives (a paste beyond is not read). */
const MAX_READ_CHARS = 20_000;

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code > 127;
}

/** Log levels a log line carries as a word of its own. */
const LOG_LEVELS = ["ERROR", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "FATAL"];

/** Whether `text` holds `:<digits>:<digits>`, a source position (`src/a.ts:12:3`). */
function hasPosition(text: string): boolean {
  for (let at = text.indexOf(":"); at !== -1; at = text.indexOf(":", at + 1)) {
    let index = at + 1;
    while (index < text.length && text.charCodeAt(index) >= 48 && text.charCodeAt(index) <= 57)
      index += 1;
    if (index > at + 1 && text[index] === ":" && /\d/.test(text[index + 1] ?? "")) return true;
  }
  return false;
}

/**
 * Whether a line reads as the user's prose: mostly letters and spaces (a path or a command in
 * backticks may sit in it), and not a log line (opening with digits, a level such as `ERROR`,
 * a source position), a stack frame (`at …`) or code (braces, arrows, semicolons ending it).
 */
function isProse(line: string): boolean {
  let letters = 0;
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    if (isLetter(code) || code === 32) letters += 1;
  }
  if (letters < line.length * 0.6) return false;
  const trimmed = line.trimStart();
  const first = trimmed.charCodeAt(0);
  if ((first >= 48 && first <= 57) || trimmed.startsWith("at ")) return false;
  if (trimmed.includes("=>") || trimmed.includes("{") || trimmed.trimEnd().endsWith(";"))
    return false;
  if (LOG_LEVELS.some((level) => hasWord(trimmed, level))) return false;
  return !hasPosition(trimmed);
}

/** Whether `lower` holds `word` as a whole word (or phrase). Linear in `lower`. */
function hasWord(lower: string, word: string): boolean {
  for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) {
    const before = at === 0 ? 32 : lower.charCodeAt(at - 1);
    const after = at + word.length >= lower.length ? 32 : lower.charCodeAt(at + word.length);
    if (!isLetter(before) && !isLetter(after)) return true;
  }
  return false;
}

/** Whether a sentence of the user's says what to do or not do. */
export function isDirective(sentence: string): boolean {
  if (sentence.length < MIN_DIRECTIVE_CHARS || sentence.length > MAX_DIRECTIVE_CHARS) return false;
  if (!isProse(sentence)) return false;
  const lower = sentence.toLowerCase();
  const first = lower.slice(0, lower.search(/[^a-z']|$/));
  return IMPERATIVES.has(first) || MARKERS.some((marker) => hasWord(lower, marker));
}

/** The sentences of one line: ends at `.`, `!` or `?` followed by a space (or the line's end). */
function sentencesOf(line: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    const ends = (code === 46 || code === 33 || code === 63) && line.charCodeAt(index + 1) === 32;
    if (!ends) continue;
    sentences.push(line.slice(start, index + 1).trim());
    start = index + 2;
  }
  const rest = line.slice(start).trim();
  if (rest !== "") sentences.push(rest);
  return sentences;
}

/**
 * The directives of one text of the user's, in order: its sentences outside code fences that
 * read as prose and say what to do (see {@link isDirective}). Reads at most 20,000 characters.
 */
export function directivesOf(text: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of headOf(text, MAX_READ_CHARS).split("\n")) {
    if (line.trimStart().startsWith("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (const sentence of sentencesOf(line)) {
      if (sentence.length <= MAX_DIRECTIVE_CHARS) {
        if (isDirective(sentence)) found.push(sentence);
        continue;
      }
      // A run-on sentence: its clauses, each a directive or not.
      for (const clause of sentence.split(/[;,]\s+/))
        if (isDirective(clause.trim())) found.push(clause.trim());
    }
  }
  return found;
}

/** The directives a directives block holds, oldest first. */
export function parseDirectives(text: string): string[] {
  if (!text.startsWith(DIRECTIVES_HEADING)) return [];
  return text
    .slice(DIRECTIVES_HEADING.length)
    .split("\n")
    .filter((line) => line.startsWith(LINE_OPEN))
    .map((line) => line.slice(LINE_OPEN.length));
}

/**
 * The user's directives in `messages`, oldest first, each once (where said last): from the
 * directives blocks of earlier notices and summaries and the user's words they keep verbatim,
 * and from the user's own text.
 */
export function collectDirectives(messages: readonly Message[]): string[] {
  const all: string[] = [];
  for (const { text, library } of userTextBlocks(messages)) {
    if (!library) all.push(...directivesOf(text));
    // A summary's block of the user's words kept verbatim holds directives too.
    else if (text.startsWith(EARLIER_USER_MESSAGE_PREFIX))
      all.push(...directivesOf(text.slice(EARLIER_USER_MESSAGE_PREFIX.length)));
    else all.push(...parseDirectives(text));
  }
  return keptWhereSaidLast(all, (directive) => directive);
}

/**
 * The directives block: the newest of `directives` (of the newest 5,000) that fit
 * `budgetTokens`, oldest first, but those `keptWhole` texts already hold; `""` when none is left.
 */
export function renderDirectives(
  directives: readonly string[],
  budgetTokens: number,
  keptWhole: readonly string[] = [],
): string {
  let room = tokensToChars(budgetTokens) - DIRECTIVES_HEADING.length;
  const lines: string[] = [];
  // The newest few thousand at most: a flood of the user's text cannot make this quadratic.
  const oldest = Math.max(0, directives.length - MAX_RENDERED);
  for (let index = directives.length - 1; index >= oldest; index -= 1) {
    const directive = directives[index]!;
    if (keptWhole.some((text) => text.includes(directive))) continue;
    const line = `\n${LINE_OPEN}${directive}`;
    if (line.length > room) break;
    lines.push(line);
    room -= line.length;
  }
  return lines.length === 0 ? "" : DIRECTIVES_HEADING + lines.reverse().join("");
}
