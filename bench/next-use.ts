import { asBlocks, type RecordedRun } from "./replay.js";

/**
 * Next-use references (issue 30's retention measure, the one `../shared/realdata/replay.mjs`
 * defines): of what each recorded assistant reply names (paths, identifiers, dotted names,
 * numbers, quoted strings), the strings a tool result or the user gave the agent earlier. The
 * part then asks whether the request sent before that reply still held them. Computed once per
 * run from the recorded messages: it does not depend on the strategy.
 */

/** What a reference looks like. */
export type ReferenceKind = "path" | "identifier" | "dotted" | "number" | "quoted";

/** A string a recorded reply names that an earlier tool result or user message gave. */
export interface Reference {
  text: string;
  kind: ReferenceKind;
}

/** The references of a run: one list per request (per recorded reply), in order. */
export interface NextUseReferences {
  perRequest: Reference[][];
  /** Candidates the replies named, before keeping those given earlier. */
  candidates: number;
  /** References over all requests. */
  total: number;
}

// The judge's definitions, character for character. They run on the recorded replies (the
// agent's own text and tool inputs), not on tool output.
// A path: a run with a slash, either two slashes or one and an extension (src/a.ts, ~/Code/y).
const PATH = /(?:~|\.{1,2})?\/?(?:[\w@+-][\w.@+-]*\/)+[\w.@+-]*[\w@+-]/g;
const EXTENSION_END = /\.[A-Za-z][\w]{0,5}$/;
const ONLY_SLASHES = /^\/+$/;
// An identifier: 6 characters or more with a case change or an inner underscore.
const IDENTIFIER = /(?<![\w$])[A-Za-z_$][\w$]{5,}(?![\w$])/g;
const IDENTIFIER_SHAPE = /[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z0-9]_[A-Za-z0-9]/;
// A dotted name: segments of 2 characters or more starting with a letter, dashes inside.
const DOTTED =
  /(?<![\w$.-])[A-Za-z_$](?:[\w$-]*[\w$])?(?:\.[A-Za-z_$](?:[\w$-]*[\w$])?)+(?![\w$-])/g;
const NUMBER = /(?<![\w.])\d{4,}(?![\w])/g;
// A quoted string of 8 to 80 characters on one line: "…", '…' not inside a word, `…`.
const QUOTED =
  /"([^"\n\r\t\\]{8,80})"|(?<![A-Za-z])'([^'\n\r\t\\]{8,80})'(?![A-Za-z])|`([^`\n\r\t]{8,80})`/g;

/** Adds the reference candidates of `text` to `into` (a path's kind wins over an earlier one). */
export function referenceCandidates(text: string, into: Map<string, ReferenceKind>): void {
  for (const [path] of text.matchAll(PATH)) {
    const slashes = path.split("/").length - 1;
    if (path.length >= 5 && (slashes >= 2 || EXTENSION_END.test(path)) && !ONLY_SLASHES.test(path))
      into.set(path, "path");
  }
  const add = (candidate: string, kind: ReferenceKind) => {
    if (!into.has(candidate)) into.set(candidate, kind);
  };
  for (const [name] of text.matchAll(IDENTIFIER))
    if (IDENTIFIER_SHAPE.test(name)) add(name, "identifier");
  for (const [name] of text.matchAll(DOTTED)) {
    if (name.length >= 5 && name.split(".").every((segment) => segment.length >= 2))
      add(name, "dotted");
  }
  for (const [digits] of text.matchAll(NUMBER)) add(digits, "number");
  for (const match of text.matchAll(QUOTED)) {
    const quoted = (match[1] ?? match[2] ?? match[3] ?? "").trim();
    if (quoted.length >= 8) add(quoted, "quoted");
  }
}

const isWordCode = (code: number) =>
  (code >= 48 && code <= 57) ||
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  code === 95;

/**
 * Whether `needle` occurs in `haystack` as a token: where it starts (ends) with a word
 * character, the occurrence is not preceded (followed) by one.
 */
export function hasToken(haystack: string, needle: string): boolean {
  if (needle.length === 0) return false;
  const first = isWordCode(needle.charCodeAt(0));
  const last = isWordCode(needle.charCodeAt(needle.length - 1));
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (first && at > 0 && isWordCode(haystack.charCodeAt(at - 1))) continue;
    const end = at + needle.length;
    if (last && end < haystack.length && isWordCode(haystack.charCodeAt(end))) continue;
    return true;
  }
  return false;
}

const MAX_DEPTH = 64;

/** Every string inside a JSON value (a tool call's input), depth-first, at most 64 levels down. */
export function jsonStrings(value: unknown, into: string[] = [], depth = 0): string[] {
  if (depth > MAX_DEPTH) return into;
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) jsonStrings(item, into, depth + 1);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) jsonStrings(item, into, depth + 1);
  return into;
}

/** A tool result's text: a string as it is, text blocks joined by lines, anything else as JSON. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? "");
  return content
    .map((block: { type?: unknown; text?: string } | null) =>
      // An absent text joins as "", as the judge's does.
      block?.type === "text" ? block.text : JSON.stringify(block),
    )
    .join("\n");
}

type RecordedMessage = RecordedRun["messages"][number];

/** The candidates of a reply: the assistant messages from `start` until the next user message. */
function replyCandidates(messages: readonly RecordedMessage[], start: number) {
  const found = new Map<string, ReferenceKind>();
  for (let index = start; messages[index]?.role === "assistant"; index += 1) {
    for (const block of asBlocks(messages[index]!.content)) {
      if (block["type"] === "text") referenceCandidates(String(block["text"]), found);
      else if (block["type"] === "tool_use")
        for (const text of jsonStrings(block["input"])) referenceCandidates(text, found);
    }
  }
  return found;
}

/** What a user message told the agent: its text and its tool results' text. */
function userText(message: RecordedMessage): string {
  const parts: string[] = [];
  for (const block of asBlocks(message.content)) {
    if (block["type"] === "text") parts.push(String(block["text"]));
    else if (block["type"] === "tool_result") parts.push(resultText(block["content"]));
  }
  return parts.join("\n");
}

/**
 * Per request (before each recorded reply: the first of consecutive assistant messages), the
 * references the reply makes to what tool results and user messages gave earlier, each piece
 * in its most specific form (a reference inside a longer one is dropped).
 */
export function nextUseReferences(run: RecordedRun): NextUseReferences {
  const perRequest: Reference[][] = [];
  let told = "";
  let candidates = 0;
  const { messages } = run;
  messages.forEach((message, index) => {
    if (message.role === "assistant" && messages[index - 1]?.role !== "assistant") {
      const found = replyCandidates(messages, index);
      candidates += found.size;
      const known = [...found].filter(([text]) => hasToken(told, text));
      const specific = known.filter(
        ([text]) => !known.some(([other]) => other.length > text.length && other.includes(text)),
      );
      perRequest.push(specific.map(([text, kind]) => ({ text, kind })));
    }
    if (message.role === "user") told += `\n${userText(message)}`;
  });
  return { perRequest, candidates, total: perRequest.reduce((sum, refs) => sum + refs.length, 0) };
}
