import type { JsonObject, JsonValue, Message } from "../core/message.js";
import { LEDGER_HEADING } from "../core/summary-format.js";
import { tokensToChars } from "../core/tokens.js";
import { isSummaryTurn } from "../core/turn.js";
import { toolResultText } from "../internal/tool-result-text.js";
import { headOf } from "../internal/whole-characters.js";
import { pathMentions } from "./path-mentions.js";

/**
 * What a tool call did to a file: read it, changed it, or made it; or only named it in its
 * output (a grep hit, a stack trace, a listing).
 */
export type FileAction = "mentioned" | "read" | "edited" | "created";

/** One file of the ledger: the strongest thing done to it, and the tool call that last touched it. */
export interface FileTouch {
  path: string;
  action: FileAction;
  /** The id of the tool call that last touched it. */
  source: string;
}

/** What the ledger remembers between tool calls: the file an editor without a path argument edits. */
export interface LedgerState {
  /** The file last opened or created by a command-line editor (SWE-agent's `open`, `create`). */
  current?: string;
}

/** A new, empty {@link LedgerState}. */
export function newLedgerState(): LedgerState {
  return {};
}

export { LEDGER_HEADING };

/** The share of the window the ledger may take. */
const LEDGER_SHARE = 0.04;
/** Its budget when the window is not known. */
const LEDGER_TOKENS = 1000;

/** Tokens the file ledger may take: 4% of the window, else 1,000. */
export function ledgerBudget(contextLimit: number | undefined): number {
  return contextLimit === undefined ? LEDGER_TOKENS : Math.floor(contextLimit * LEDGER_SHARE);
}

// Argument keys that name one file, and keys that name several.
const PATH_KEYS = [
  "path",
  "file_path",
  "filePath",
  "filename",
  "file_name",
  "fileName",
  "file",
  "notebook_path",
  "target_file",
  "relative_path",
  "absolute_path",
  "source_path",
  "destination_path",
  "old_path",
  "new_path",
];
const PATHS_KEYS = ["paths", "files", "file_paths"];
// Tool names (lowercased) that change files; `write` and `create` make them.
const CREATING_WORDS = ["create", "write"];
const EDITING_WORDS = [
  "edit",
  "patch",
  "replace",
  "insert",
  "modify",
  "append",
  "delete",
  "remove",
  "move",
  "rename",
  "mkdir",
];
// Editors that take a `command` (`str_replace_editor`, `str_replace_based_edit_tool`).
const EDITOR_COMMANDS = new Map<string, FileAction>([
  ["view", "read"],
  ["create", "created"],
  ["str_replace", "edited"],
  ["insert", "edited"],
  ["undo_edit", "edited"],
  ["edit", "edited"],
]);
// Command-line editors whose `command` names the file (SWE-agent): `open PATH`, `create PATH`.
const FILE_COMMANDS = new Map<string, FileAction>([
  ["open", "read"],
  ["create", "created"],
]);
const MAX_PATH_LENGTH = 1024;

function asPath(value: JsonValue | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  const path = value.trim();
  if (path === "" || path.length > MAX_PATH_LENGTH || path.includes("\n")) return undefined;
  return path;
}

function actionOfName(lowerName: string): FileAction {
  if (CREATING_WORDS.some((word) => lowerName.includes(word))) return "created";
  if (EDITING_WORDS.some((word) => lowerName.includes(word))) return "edited";
  return "read";
}

/** The first word of a command and the one after it (`open src/a.py 20` → `open`, `src/a.py`). */
function commandWords(command: string): [string, string | undefined] {
  const words = headOf(command.trim(), MAX_PATH_LENGTH + 64).split(/\s+/, 2);
  return [words[0] ?? "", words[1]];
}

function commandLineTouch(
  lowerName: string,
  command: string,
  state: LedgerState,
): { path: string; action: FileAction }[] {
  const [word, argument] = commandWords(command);
  const fileAction = FILE_COMMANDS.get(word);
  if (fileAction !== undefined && word === lowerName) {
    const path = asPath(argument?.replace(/^["']|["']$/g, ""));
    if (path === undefined) return [];
    state.current = path;
    return [{ path, action: fileAction }];
  }
  if (word === "edit" && lowerName === "edit" && state.current !== undefined)
    return [{ path: state.current, action: "edited" }];
  return [];
}

/**
 * The files one tool call touched, from its name and input: the values of path-like keys
 * (`path`, `file_path`, `filename`, …), as edited or created when the tool's name says it
 * changes files (`edit`, `write`, `create`, …) or its `command` does, else as read.
 */
export function fileActions(
  name: string,
  input: JsonObject,
  state: LedgerState,
): { path: string; action: FileAction }[] {
  const lowerName = name.toLowerCase();
  const paths: string[] = [];
  for (const key of PATH_KEYS) {
    const path = asPath(input[key]);
    if (path !== undefined) paths.push(path);
  }
  for (const key of PATHS_KEYS) {
    const value = input[key];
    if (Array.isArray(value))
      for (const item of value.slice(0, 100)) {
        const path = asPath(item);
        if (path !== undefined) paths.push(path);
      }
  }
  const command = input["command"];
  if (paths.length === 0)
    return typeof command === "string" ? commandLineTouch(lowerName, command, state) : [];
  const byCommand = typeof command === "string" ? EDITOR_COMMANDS.get(command) : undefined;
  const action = byCommand ?? actionOfName(lowerName);
  if (action === "created" && paths.length === 1) state.current = paths[0]!;
  return [...new Set(paths)].map((path) => ({ path, action }));
}

const RANK: Record<FileAction, number> = { mentioned: 0, read: 1, edited: 2, created: 3 };

/** A source as a line shows it: one short run of characters that cannot end the line's parts. */
export function sourceLabel(value: string): string {
  let label = "";
  for (const character of value.slice(0, 120))
    label += /[\w.:@/-]/.test(character) ? character : "_";
  return label;
}

const SOURCE_OPEN = " (from ";

function ledgerLine(entry: FileTouch): string {
  return `- ${entry.action} ${entry.path}${SOURCE_OPEN}${sourceLabel(entry.source)})`;
}

/** The line that lists paths only mentioned in tool output, several to a line. */
const MENTIONED_OPEN = "- mentioned in tool output: ";
/** The source a mention read back from a ledger line is given (the line names none). */
const MENTIONED_SOURCE = "tool output";
/** Paths a mentions line holds before the next begins. */
const MENTIONS_PER_LINE = 12;

/** The mentioned paths as lines of {@link MENTIONED_OPEN}, in their order. */
function mentionedLines(paths: readonly string[]): string[] {
  const lines: string[] = [];
  for (let index = 0; index < paths.length; index += MENTIONS_PER_LINE)
    lines.push(MENTIONED_OPEN + paths.slice(index, index + MENTIONS_PER_LINE).join(", "));
  return lines;
}

/** The entries a ledger line holds: one file, or the paths of a mentions line; none else. */
function parseLedgerLine(line: string): FileTouch[] {
  if (line.startsWith(MENTIONED_OPEN))
    return line
      .slice(MENTIONED_OPEN.length)
      .split(", ")
      .filter((path) => path !== "" && !path.includes(" "))
      .map((path) => ({ path, action: "mentioned", source: MENTIONED_SOURCE }));
  const entry = parseFileLine(line);
  return entry === undefined ? [] : [entry];
}

/** The entry a one-file ledger line holds, or undefined for a line that is not one. */
function parseFileLine(line: string): FileTouch | undefined {
  if (!line.startsWith("- ") || !line.endsWith(")")) return undefined;
  const space = line.indexOf(" ", 2);
  const action = line.slice(2, space);
  if (space === -1 || !Object.hasOwn(RANK, action) || action === "mentioned") return undefined;
  const open = line.lastIndexOf(SOURCE_OPEN);
  if (open <= space) return undefined;
  const path = line.slice(space + 1, open);
  const source = line.slice(open + SOURCE_OPEN.length, -1);
  if (path === "" || source === "") return undefined;
  return { path, action: action as FileAction, source };
}

/** Whether a text block of a summary message is the library's file ledger. */
export function isLedgerText(text: string): boolean {
  return text.startsWith(LEDGER_HEADING);
}

/**
 * The ledger of a folded part: the ledgers of the summaries in it, then every file its tool
 * calls touched (from their inputs, never from the summarizer) and the paths their results
 * mention (from the results' text, or the paths a placeholder kept), oldest touch first.
 */
export function collectFileLedger(folded: readonly Message[]): FileTouch[] {
  // Files by path, in order of their last touch, each with the strongest action done to it.
  const files = new Map<string, FileTouch>();
  const touch = (path: string, action: FileAction, source: string) => {
    const known = files.get(path);
    files.delete(path);
    const strongest =
      known !== undefined && RANK[known.action] > RANK[action] ? known.action : action;
    files.set(path, { path, action: strongest, source });
  };
  const state = newLedgerState();
  for (const message of folded) {
    const summary = isSummaryTurn(message.turnId) && message.role === "user";
    for (const block of message.content) {
      if (summary && block.type === "text" && isLedgerText(block.text)) {
        for (const line of block.text.split("\n"))
          for (const entry of parseLedgerLine(line)) touch(entry.path, entry.action, entry.source);
      } else if (block.type === "tool_use") {
        for (const entry of fileActions(block.name, block.input, state))
          touch(entry.path, entry.action, block.id);
      } else if (block.type === "tool_result") {
        for (const path of pathMentions(toolResultText(block.content)))
          touch(path, "mentioned", block.toolUseId);
      }
    }
  }
  return [...files.values()];
}

/**
 * The ledger block within `maxTokens`: the files changed are chosen first, then those read,
 * then the paths only mentioned in tool output, the latest touched first within each; what
 * does not fit is counted. The chosen files are written one a line, oldest touch first, so the
 * next summary reads them back in order; the mentioned paths follow, several to a line, in the
 * same order. `""` when there is nothing to list.
 */
export function renderFileLedger(entries: readonly FileTouch[], maxTokens: number): string {
  if (entries.length === 0) return "";
  const budget = tokensToChars(Math.max(0, Math.floor(maxTokens)));
  const newestFirst = [...entries].reverse();
  const ordered = [
    ...newestFirst.filter((entry) => RANK[entry.action] > RANK.read),
    ...newestFirst.filter((entry) => entry.action === "read"),
    ...newestFirst.filter((entry) => entry.action === "mentioned"),
  ];
  const chosen = new Set<FileTouch>();
  // Room for the closing count line, so the block never outgrows its budget.
  let used = LEDGER_HEADING.length + 64;
  let mentions = 0;
  for (const entry of ordered) {
    const mentioned = entry.action === "mentioned";
    // A mention takes its path and a separator, and opens a line every MENTIONS_PER_LINE.
    const opening = mentioned && mentions % MENTIONS_PER_LINE === 0 ? MENTIONED_OPEN.length : 0;
    const length = mentioned ? opening + entry.path.length + 2 : ledgerLine(entry).length + 1;
    if (used + length > budget) continue;
    used += length;
    if (mentioned) mentions += 1;
    chosen.add(entry);
  }
  if (chosen.size === 0) return "";
  const kept = entries.filter((entry) => chosen.has(entry));
  const lines = [
    ...kept.filter((entry) => entry.action !== "mentioned").map(ledgerLine),
    ...mentionedLines(
      kept.filter((entry) => entry.action === "mentioned").map((entry) => entry.path),
    ),
  ];
  const left = entries.length - chosen.size;
  if (left > 0) lines.push(`- (${left} more files touched earlier; in the archive)`);
  return [LEDGER_HEADING, ...lines].join("\n");
}
