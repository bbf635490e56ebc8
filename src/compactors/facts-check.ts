import type { ContentBlock, JsonValue, Message } from "../core/message.js";
import { tokensToChars } from "../core/tokens.js";
import { isSummaryTurn } from "../core/turn.js";

/** What a fact is: an identifier, a file path (or URL), or a constraint the user stated. */
export type FactKind = "identifier" | "path" | "constraint";

/** A string a summary must keep: exact for identifiers and paths, the user's words for constraints. */
export interface Fact {
  kind: FactKind;
  text: string;
}

/** What {@link checkSummaryFacts} checks: the folded part, its summary, and what stays. */
export interface SummaryFactsCheckInput {
  folded: readonly Message[];
  summary: string;
  kept: readonly Message[];
  /** The most tokens the facts section may take (4 characters a token). */
  maxTokens: number;
}

/** The facts a summary lost, and the section that puts back those that fit. */
export interface SummaryFactsCheck {
  /** Facts of the folded part in neither the summary nor the kept messages, in order of first appearance. */
  missing: Fact[];
  /** The missing facts the section holds, in its order. */
  added: Fact[];
  /** The "facts kept" section, or `""` when it holds nothing. */
  section: string;
}

/** Tokens the facts section may take by default. */
export const DEFAULT_FACTS_SECTION_TOKENS = 400;

const SECTION_HEADING = "Facts kept from the folded part:";
const LABELS: Record<FactKind, string> = {
  constraint: "constraint",
  path: "path",
  identifier: "id",
};
// The section's own lines, read back when an earlier summary is folded again.
const SECTION_LINE = /^- (constraint|path|id): (.+)$/;
const KINDS_BY_LABEL: Record<string, FactKind> = { id: "identifier" };
// The user's kept words carry a `[Earlier user message]: `-style tag the library put there.
const LEADING_TAG = /^\[[^\]\n]{1,40}\]:\s*/;
const LINE_MARKER = /^\s*(?:[-*+•>]|#{1,6})\s+/;
const NUMBERED = /^\s*\d{1,3}[.)]\s+(?=\S)/;
// "I don't know" states no rule: a "don't" after "I" or "it" is not counted.
const CONSTRAINT_WORDS =
  /\b(?:must|mustn[’']t|never|always|(?<!\b(?:i|it)\s)(?:don[’']t|do not)|only|without|avoid|make sure|ensure|keep|prefer)\b/i;
// A URL whole, or a run of characters that identifiers and paths hold (a Windows path with
// spaces is cut at the first).
const TOKEN = /[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>()[\]{}]+|[^\s"'`<>()[\]{},;=*|]+/gi;
// Longer tokens are blobs (base64, minified code), not facts.
const MAX_TOKEN_LENGTH = 256;
const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const WINDOWS_PATH = /^[A-Za-z]:\\[\w.@+~\\-]*[A-Za-z][\w.@+~\\-]*$/;
const POSIX_CHARACTERS = /^[\w.@+~/-]+$/;
const ROOTED = /^(?:\/|\.{1,2}\/|~\/)/;
const FILE_LINE = /:\d+(?::\d+)?$/;
const EXTENSIONS = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs json jsonl md mdx txt csv tsv log py pyi ipynb rs go java kt kts " +
    "scala rb php c h cc cpp hpp cs swift sh bash zsh fish ps1 bat yml yaml toml ini cfg conf " +
    "lock sql html htm css scss sass less xml svg png jpg jpeg gif webp pdf zip gz tgz tar wasm " +
    "proto graphql vue svelte dart lua ex exs tf gradle properties db sqlite pem"
  ).split(" "),
);
// Member accesses in code (`logger.info`, `self.db`) read as these; a bare name with one is no path.
const CODE_LIKE_EXTENSIONS = new Set(["log", "db", "cfg"]);
// Files known by name alone; a bare `.name` is more often an extension or a method (`.py`, `.format`).
const NAMED_FILES = new Set(
  (
    "Makefile Dockerfile Jenkinsfile Gemfile Procfile .env .gitignore .gitattributes .dockerignore " +
    ".npmrc .nvmrc .editorconfig .prettierrc .eslintrc .babelrc .bashrc .zshrc .profile .github .vscode"
  ).split(" "),
);
// "Read/Write/Execute", "Phoenix/Bandit/Ash": capitalised words between slashes are prose.
const CAPITALISED_WORDS = /^[A-Z][a-z]+(?:\/[A-Z][a-z]+)+$/;
const VERSION_SUFFIX = "(?:-[0-9A-Za-z]+(?:\\.[0-9A-Za-z]+)*)?";
const IDENTIFIER = new RegExp(
  `(?<![\\w-])(?:${[
    "[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", // uuid
    `v\\d+(?:\\.\\d+)+${VERSION_SUFFIX}`, // v1.2, v1.2.3-beta.1
    `\\d+(?:\\.\\d+){2,}${VERSION_SUFFIX}`, // 1.2.3
    "[A-Z][A-Z0-9]{1,9}-\\d+", // ABC-123
    "[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+", // snake_case, SCREAMING_CASE, toolu_01…
    "[a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+", // camelCase
    "[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,}", // PascalCase of three words or more
    "(?<opaque>[A-Za-z0-9]{7,})", // hashes and opaque ids, filtered by isOpaqueId
  ].join("|")})(?![\\w-])`,
  "g",
);

/** A hex hash of 7 characters or more, or a long token of letters and digits (a ULID, a base62 id). */
function isOpaqueId(text: string): boolean {
  if (!/\d/.test(text) || !/[A-Za-z]/.test(text)) return false;
  return /^(?:[0-9a-f]+|[0-9A-F]+)$/.test(text) || text.length >= 16;
}

function isPath(text: string): boolean {
  if (URL_PATTERN.test(text) || WINDOWS_PATH.test(text)) return true;
  if (!POSIX_CHARACTERS.test(text) || !/[A-Za-z]/.test(text) || text.includes("//")) return false;
  const segments = text.split("/");
  const last = segments[segments.length - 1]!;
  const dot = last.lastIndexOf(".");
  const extension = dot > 0 ? last.slice(dot + 1) : "";
  const hasExtension = EXTENSIONS.has(extension);
  if (segments.length === 1)
    return (hasExtension && !CODE_LIKE_EXTENSIONS.has(extension)) || NAMED_FILES.has(text);
  const root = ROOTED.exec(text);
  // One slash between words is prose ("and/or"); a root, an extension or a deeper path is not.
  if (root !== null) return text.length - root[0].length >= 2;
  return hasExtension || (segments.length >= 3 && !CAPITALISED_WORDS.test(text));
}

const MAY_BE_FACT = /[/\\.:_-]|[a-z0-9][A-Z]|^.{7}/;

/**
 * Whether a token can hold a fact at all: every URL, path and identifier pattern above needs
 * a separator (`/ \\ . : _ -`), a case change after a letter or digit, or 7 characters. Most
 * tokens are plain words; skipping them halves the time a large fold spends here.
 */
export function mayBeFact(token: string): boolean {
  return MAY_BE_FACT.test(token);
}

/** The facts in one token: a URL, a path (without its `:line`), or the identifiers in it. */
export function tokenFacts(raw: string, into: Fact[]): void {
  const token = raw.replace(/[.,:;!?]+$/, "");
  if (URL_PATTERN.test(token)) {
    into.push({ kind: "path", text: token });
    return;
  }
  const path = token.replace(FILE_LINE, "");
  if (isPath(path)) {
    into.push({ kind: "path", text: path });
    return;
  }
  for (const match of token.matchAll(IDENTIFIER))
    if (match.groups?.opaque === undefined || isOpaqueId(match[0]))
      into.push({ kind: "identifier", text: match[0] });
}

/**
 * Where facts go, and the tokens already read: a token's facts are the same wherever it
 * stands, and were found at its first appearance, so a repeat is skipped (in a large fold,
 * most tokens are repeats).
 */
interface FactSink {
  facts: Fact[];
  seen: Set<string>;
}

function textTokenFacts(text: string, sink: FactSink): void {
  for (const { 0: raw, index } of text.matchAll(TOKEN)) {
    // A closing tag (`</div>`) is markup, not a path.
    if (raw.length > MAX_TOKEN_LENGTH || (raw[0] === "/" && text[index - 1] === "<")) continue;
    if (sink.seen.has(raw)) continue;
    sink.seen.add(raw);
    if (mayBeFact(raw)) tokenFacts(raw, sink.facts);
  }
}

/**
 * Facts of one text; where the user wrote it (or a summary holds it), sentence by sentence,
 * with the sentences that state constraints.
 */
function textFacts(text: string, userWords: boolean, summary: boolean, sink: FactSink): void {
  // Without constraints to find, lines and sentences do not matter: tokens never span
  // whitespace, and the list markers and numbers cut off below hold no fact.
  if (!userWords && !summary) {
    textTokenFacts(text, sink);
    return;
  }
  const into = sink.facts;
  for (const line of (summary ? text.replace(LEADING_TAG, "") : text).split(/\r?\n/)) {
    const own = summary ? SECTION_LINE.exec(line) : null;
    if (own !== null) {
      into.push({ kind: KINDS_BY_LABEL[own[1]!] ?? (own[1] as FactKind), text: own[2]! });
      continue;
    }
    const numbered = NUMBERED.exec(line);
    const body = numbered === null ? line.replace(LINE_MARKER, "") : line.slice(numbered[0].length);
    const sentences = numbered === null ? body.split(/(?<=[.!?])\s+/) : [body];
    for (const sentence of sentences) {
      const trimmed = sentence.trim();
      if (userWords && trimmed !== "" && (numbered !== null || CONSTRAINT_WORDS.test(trimmed)))
        into.push({ kind: "constraint", text: trimmed });
      textTokenFacts(trimmed, sink);
    }
  }
}

function jsonStrings(value: JsonValue, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) jsonStrings(item, into);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) jsonStrings(item, into);
}

/** The texts of a block that facts come from: text, tool input values, tool results. */
function blockTexts(block: ContentBlock, into: string[]): void {
  if (block.type === "text") into.push(block.text);
  else if (block.type === "tool_use") jsonStrings(block.input, into);
  else if (block.type === "tool_result") {
    if (typeof block.content === "string") into.push(block.content);
    else for (const part of block.content) blockTexts(part, into);
  }
}

function factKey(fact: Fact): string {
  return `${fact.kind}\u0000${fact.kind === "constraint" ? normalize(fact.text) : fact.text}`;
}

/**
 * The identifiers, paths and user constraints of a part of a conversation, once each, in order
 * of first appearance. Constraints come from the user's own text (not tool results); in a
 * summary message, from the words it keeps verbatim and from an earlier facts section.
 *
 * @example
 * extractFacts(folded).filter((fact) => fact.kind === "constraint")
 */
export function extractFacts(messages: readonly Message[]): Fact[] {
  const found: Fact[] = [];
  const sink: FactSink = { facts: found, seen: new Set() };
  for (const message of messages) {
    const summary = isSummaryTurn(message.turnId);
    for (const [index, block] of message.content.entries()) {
      if (block.type === "text") {
        // The summary message's first block is the model's summary, not the user's words.
        const userWords = message.role === "user" && !(summary && index === 0);
        textFacts(block.text, userWords, summary, sink);
        continue;
      }
      const texts: string[] = [];
      blockTexts(block, texts);
      for (const text of texts) textFacts(text, false, false, sink);
    }
  }
  const seen = new Set<string>();
  return found.filter((fact) => {
    const key = factKey(fact);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!?;:,]+$/, "");
}

const WORD_CHARACTER = /[A-Za-z0-9_]/;

/** Whether `needle` occurs in `haystack` not as part of a longer word (`toolu_1` is not in `toolu_12`). */
function occursWhole(haystack: string, needle: string): boolean {
  if (needle === "") return true;
  const guardStart = WORD_CHARACTER.test(needle[0]!);
  const guardEnd = WORD_CHARACTER.test(needle[needle.length - 1]!);
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    if (guardStart && before !== undefined && WORD_CHARACTER.test(before)) continue;
    if (guardEnd && after !== undefined && WORD_CHARACTER.test(after)) continue;
    return true;
  }
  return false;
}

/**
 * Checks a summary against the part it replaces: the identifiers, paths and user constraints of
 * the folded part found neither in the summary nor in the kept messages (identifiers and paths
 * exactly; constraints case- and whitespace-insensitively; each as whole words), and a section
 * listing those that fit in `maxTokens`: constraints first, then paths, then identifiers, the
 * newest first within each kind. Deterministic; no model call.
 *
 * @example
 * const check = checkSummaryFacts({ folded, summary, kept, maxTokens: DEFAULT_FACTS_SECTION_TOKENS });
 * const text = check.section === "" ? summary : `${summary}\n\n${check.section}`;
 */
export function checkSummaryFacts(input: SummaryFactsCheckInput): SummaryFactsCheck {
  const texts = [input.summary];
  for (const message of input.kept) for (const block of message.content) blockTexts(block, texts);
  // A separator that is neither a word character nor whitespace, so no match spans two texts.
  const exact = texts.join("\u0000");
  const normalized = normalize(exact);
  const missing = extractFacts(input.folded).filter((fact) =>
    fact.kind === "constraint"
      ? !occursWhole(normalized, normalize(fact.text))
      : !occursWhole(exact, fact.text),
  );
  const budget = tokensToChars(Math.floor(input.maxTokens));
  const added: Fact[] = [];
  let section = SECTION_HEADING;
  if (!(section.length <= budget)) return { missing, added, section: "" };
  for (const kind of ["constraint", "path", "identifier"] as const) {
    for (const fact of missing.filter((each) => each.kind === kind).reverse()) {
      const line = `\n- ${LABELS[kind]}: ${fact.text}`;
      if (section.length + line.length > budget) continue;
      section += line;
      added.push(fact);
    }
  }
  return { missing, added, section: added.length === 0 ? "" : section };
}
