import type { Message, ToolResultBlock } from "../core/message.js";
import { OUTLINE_HEADING, outlineHeadingLength } from "../core/summary-format.js";
import { tokensToChars } from "../core/tokens.js";
import { isSummaryTurn } from "../core/turn.js";
import { digitsEnd } from "../internal/digits.js";
import { toolResultText } from "../internal/tool-result-text.js";
import { headOf } from "../internal/whole-characters.js";
import { fileActions, newLedgerState } from "./file-ledger.js";

/**
 * Outlines of the files an agent read: the lines of each file that declare something (a
 * module, an import, a class, a function, a schema field at the top of a file), as the read
 * showed them, with their line numbers. When a compaction removes a file's read, its outline
 * stays in the notice: an agent writing code against a file it read long ago names what the
 * file declares (a repository map, built from what the agent saw, never from the disk).
 */

export { OUTLINE_HEADING };

/** What opens one file's section in the outlines block: `\n== path ==\n`. */
const SECTION_OPEN = "\n== ";
const SECTION_CLOSE = " ==\n";

/** The share of the window outlines may take in a notice. */
const OUTLINE_SHARE = 0.06;
/** Their budget when the window is not known. */
const OUTLINE_TOKENS = 1500;

/** Tokens the outlines block may take: 6% of the window, else 1,500. */
export function outlineBudget(contextLimit: number | undefined): number {
  return contextLimit === undefined ? OUTLINE_TOKENS : Math.floor(contextLimit * OUTLINE_SHARE);
}

/** The most characters one file's outline takes. */
const MAX_OUTLINE_CHARS = 1500;
/** A read shorter than this is not outlined (an error, a missing file, a tiny file). */
const MIN_READ_CHARS = 1500;
/** Columns of indentation a declaration line may have (a tab counts 4): top level and one in. */
const MAX_INDENT = 4;
/** A longer line is cut here. */
const MAX_LINE_CHARS = 140;
/** The fewest characters a declaration line has, indentation aside. */
const MIN_LINE_CHARS = 5;
/** Lines that only close or open a block, or only open a comment. */
const BARE_LINES = new Set([
  "end",
  "end)",
  "}",
  "})",
  "});",
  "};",
  "]",
  "];",
  ")",
  "{",
  "*/",
  "/**",
  "```",
]);
/** The most lines of a read the outline looks at. */
const MAX_LINES_READ = 20_000;

/**
 * A line number a read tool put before the line (`   12→text`, `12\ttext`), and the line
 * without it; `["", line]` when there is none.
 */
function splitLineNumber(line: string): [string, string] {
  let index = 0;
  while (index < line.length && index < 12 && line.charCodeAt(index) === 32) index += 1;
  const digitsStart = index;
  index = digitsEnd(line, digitsStart, 8);
  if (index === digitsStart) return ["", line];
  const separator = line[index];
  if (separator !== "→" && separator !== "\t" && separator !== "|") return ["", line];
  return [line.slice(digitsStart, index), line.slice(index + 1)];
}

/** Columns of leading whitespace (a tab counts 4), and where the text starts. */
function indentation(line: string): { columns: number; start: number } {
  let columns = 0;
  let start = 0;
  for (; start < line.length; start += 1) {
    const code = line.charCodeAt(start);
    if (code === 32) columns += 1;
    else if (code === 9) columns += 4;
    else break;
  }
  return { columns, start };
}

/** Whether a line is a comment or only opens or closes a block. */
function isBare(text: string): boolean {
  const trimmed = text.trimEnd();
  return (
    BARE_LINES.has(trimmed) ||
    trimmed.startsWith("//") ||
    trimmed.startsWith("/*") ||
    trimmed.startsWith("* ") ||
    trimmed.startsWith("#!") ||
    trimmed === "*"
  );
}

/**
 * The outline of a file's text as a read tool returned it: its lines indented at most one
 * level (declarations, imports, top-level statements, headings), comments and bare braces left
 * out, each cut to 140 characters and led by its line number when the read gave one, within
 * 1,500 characters. Linear in the text; never reads more than 20,000 lines.
 */
export function fileOutline(text: string): string {
  const lines: string[] = [];
  let chars = 0;
  let start = 0;
  for (let count = 0; start <= text.length && count < MAX_LINES_READ; count += 1) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const [number, line] = splitLineNumber(text.slice(start, end));
    start = end + 1;
    const { columns, start: textStart } = indentation(line);
    const content = line.slice(textStart);
    // A line opening like a section of the block (`== `) would be read back as one.
    if (columns > MAX_INDENT || content.trim().length < MIN_LINE_CHARS || isBare(content)) continue;
    if (content.startsWith("==")) continue;
    const clipped =
      content.length > MAX_LINE_CHARS ? `${headOf(content, MAX_LINE_CHARS)}…` : content.trimEnd();
    const entry = number === "" ? clipped : `${number}: ${clipped}`;
    if (chars + entry.length + 1 > MAX_OUTLINE_CHARS) break;
    lines.push(entry);
    chars += entry.length + 1;
  }
  return lines.join("\n");
}

/**
 * The outlines of the files read in `messages`, by path, oldest read first (a file read again
 * takes its newest read's outline and place): from the results of calls that read exactly one
 * file (as the file ledger tells them), long enough and not errors, and from the outlines
 * blocks of earlier notices among them.
 */
export function collectOutlines(messages: readonly Message[]): Map<string, string> {
  // Each path's candidates in order: an outline from a notice, or a read's result. Only the
  // newest one giving an outline counts, so they are outlined newest first (a file read many
  // times is outlined once), and each outline stands where its candidate did.
  const candidates: [path: string, outline: string | ToolResultBlock][] = [];
  const reads = new Map<string, string>();
  const state = newLedgerState();
  for (const message of messages) {
    const notice = message.role === "user" && isSummaryTurn(message.turnId);
    for (const block of message.content) {
      if (notice && block.type === "text" && outlineHeadingLength(block.text) !== -1) {
        for (const section of parseOutlines(block.text)) candidates.push(section);
      } else if (block.type === "tool_use") {
        const touched = fileActions(block.name, block.input, state);
        if (touched.length === 1 && touched[0]!.action === "read")
          reads.set(block.id, touched[0]!.path);
      } else if (block.type === "tool_result" && block.isError !== true) {
        const path = reads.get(block.toolUseId);
        if (path !== undefined) candidates.push([path, block]);
      }
    }
  }
  const newestFirst = new Map<string, string>();
  for (const [path, source] of candidates.reverse()) {
    if (newestFirst.has(path)) continue;
    const outline = typeof source === "string" ? source : readOutline(source);
    if (outline !== undefined) newestFirst.set(path, outline);
  }
  return new Map([...newestFirst].reverse());
}

/** The outline of a read's result; undefined when it is too short or outlines to nothing. */
function readOutline(result: ToolResultBlock): string | undefined {
  const text = toolResultText(result.content);
  if (text.length < MIN_READ_CHARS) return undefined;
  const outline = fileOutline(text);
  return outline === "" ? undefined : outline;
}

/** The paths of the files read in `messages` (whose outline is not needed while they stay). */
export function pathsRead(messages: readonly Message[]): Set<string> {
  const paths = new Set<string>();
  const state = newLedgerState();
  for (const message of messages)
    for (const block of message.content)
      if (block.type === "tool_use")
        for (const touched of fileActions(block.name, block.input, state))
          if (touched.action === "read") paths.add(touched.path);
  return paths;
}

/**
 * The outlines block: the newest reads first, each whole or not at all, within `budgetTokens`;
 * `""` when none fits. Outlines of `visible` paths (read again in what stays) are left out.
 */
export function renderOutlines(
  outlines: ReadonlyMap<string, string>,
  budgetTokens: number,
  visible: ReadonlySet<string> = new Set(),
): string {
  let room = tokensToChars(budgetTokens) - OUTLINE_HEADING.length;
  const sections: string[] = [];
  const newestFirst = [...outlines].reverse();
  for (const [path, outline] of newestFirst) {
    if (visible.has(path)) continue;
    const section = `${SECTION_OPEN}${path}${SECTION_CLOSE}${outline}`;
    if (section.length > room) continue;
    sections.push(section);
    room -= section.length;
  }
  return sections.length === 0 ? "" : OUTLINE_HEADING + sections.join("");
}

/** The outlines an outlines block holds, by path, oldest first (the block lists the newest first). */
export function parseOutlines(text: string): Map<string, string> {
  const sections: [string, string][] = [];
  // Past the heading (a text without one, which no caller passes, is read from its start).
  let at = text.indexOf(SECTION_OPEN, outlineHeadingLength(text));
  while (at !== -1) {
    const close = text.indexOf(SECTION_CLOSE, at + SECTION_OPEN.length);
    if (close === -1) break;
    const next = text.indexOf(SECTION_OPEN, close + SECTION_CLOSE.length);
    const path = text.slice(at + SECTION_OPEN.length, close);
    const outline = text.slice(close + SECTION_CLOSE.length, next === -1 ? text.length : next);
    if (path !== "" && !path.includes("\n")) sections.push([path, outline]);
    at = next;
  }
  return new Map(sections.reverse());
}
