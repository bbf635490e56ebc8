import type { ContentBlock, JsonValue, Message } from "../core/message.js";
import { SECTION_HEADING } from "../core/summary-format.js";
import { tokensToChars } from "../core/tokens.js";
import { isSummaryTurn } from "../core/turn.js";
import { windowShareBudget } from "../internal/window-share.js";
import { FactPresence } from "./fact-presence.js";
import { MAX_TOKEN_LENGTH, mayBeFact, normalize, TOKEN, tokenFacts } from "./fact-tokens.js";
import { sourceLabel } from "./file-ledger.js";
import { earlierUserWords } from "./summary-message.js";

export { mayBeFact, tokenFacts } from "./fact-tokens.js";

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
  /** Name each line's source (`(from tool call toolu_1)`), so a later summary may restore it. @default false */
  cite?: boolean;
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

/** Tokens the facts section may take when the window is not known (and at least, when it is). */
export const DEFAULT_FACTS_SECTION_TOKENS = 400;

/** The share of the window the facts section may take by default. */
const FACTS_SECTION_SHARE = 0.01;

/** Tokens of the facts section: the option, else 1% of the window and at least 400. */
export function factsSectionBudget(
  option: number | undefined,
  contextLimit: number | undefined,
): number {
  return windowShareBudget(option, contextLimit, {
    share: FACTS_SECTION_SHARE,
    unknownWindow: DEFAULT_FACTS_SECTION_TOKENS,
    least: DEFAULT_FACTS_SECTION_TOKENS,
  });
}

export { SECTION_HEADING };

const LABELS: Record<FactKind, string> = {
  constraint: "constraint",
  path: "path",
  identifier: "id",
};
const LINE_MARKER = /^\s*(?:[-*+•>]|#{1,6})\s+/;
const NUMBERED = /^\s*\d{1,3}[.)]\s+(?=\S)/;
// "I don't know" states no rule: a "don't" after "I" or "it" is not counted.
const CONSTRAINT_WORDS =
  /\b(?:must|mustn[’']t|never|always|(?<!\b(?:i|it)\s)(?:don[’']t|do not)|only|without|avoid|make sure|ensure|keep|prefer)\b/i;

/** Where a fact came from: the user message, assistant message or tool call that holds it. */
export interface CitedFact extends Fact {
  /** `user message ID`, `assistant message ID` or `tool call ID`. */
  source: string;
}

/**
 * Where facts go, the tokens already read, and the source of the text being read: a token's
 * facts are the same wherever it stands, and were found at its first appearance, so a repeat
 * is skipped (in a large fold, most tokens are repeats).
 */
interface FactSink {
  facts: CitedFact[];
  seen: Set<string>;
  source: string;
}

function textTokenFacts(text: string, sink: FactSink): void {
  const found: Fact[] = [];
  for (const { 0: raw, index } of text.matchAll(TOKEN)) {
    // A closing tag (`</div>`) is markup, not a path.
    if (raw.length > MAX_TOKEN_LENGTH || (raw[0] === "/" && text[index - 1] === "<")) continue;
    if (sink.seen.has(raw)) continue;
    sink.seen.add(raw);
    if (mayBeFact(raw)) tokenFacts(raw, found);
  }
  for (const fact of found) sink.facts.push({ ...fact, source: sink.source });
}

/** Facts of the user's words, sentence by sentence, with the sentences that state constraints. */
function userWordFacts(text: string, sink: FactSink): void {
  for (const line of text.split(/\r?\n/)) {
    const numbered = NUMBERED.exec(line);
    const body = numbered === null ? line.replace(LINE_MARKER, "") : line.slice(numbered[0].length);
    const sentences = numbered === null ? body.split(/(?<=[.!?])\s+/) : [body];
    for (const sentence of sentences) {
      const trimmed = sentence.trim();
      if (trimmed !== "" && (numbered !== null || CONSTRAINT_WORDS.test(trimmed)))
        sink.facts.push({ kind: "constraint", text: trimmed, source: sink.source });
      textTokenFacts(trimmed, sink);
    }
  }
}

// Tool inputs nested deeper than this are not read for facts (intake bounds depth anyway).
const MAX_JSON_DEPTH = 64;

function jsonStrings(value: JsonValue, into: string[], depth = 0): void {
  if (typeof value === "string") into.push(value);
  else if (depth >= MAX_JSON_DEPTH || value === null || typeof value !== "object") return;
  else if (Array.isArray(value)) for (const item of value) jsonStrings(item, into, depth + 1);
  else for (const item of Object.values(value)) jsonStrings(item, into, depth + 1);
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

/** The section's lines an earlier summary holds: only those that name their source. */
function sectionFacts(text: string, sink: FactSink): void {
  for (const line of text.split("\n")) {
    const parsed = parseSectionLine(line);
    if (parsed !== undefined) sink.facts.push(parsed);
  }
}

/**
 * The facts the library's own blocks of a summary message hold: the user's words it kept
 * verbatim, and its facts section's cited lines. The summary's text (the summarizer's prose)
 * and everything else are skipped: a summarizer's claim is no source.
 */
function summaryBlockFacts(message: Message, sink: FactSink): void {
  for (const [index, block] of message.content.entries()) {
    if (index === 0 || block.type !== "text" || message.role !== "user") continue;
    const words = earlierUserWords(block.text);
    if (words !== undefined) {
      sink.source =
        words.source === undefined ? "earlier user message" : `user message ${words.source}`;
      userWordFacts(words.text, sink);
    } else if (block.text.startsWith(SECTION_HEADING)) sectionFacts(block.text, sink);
  }
}

function messageFacts(message: Message, sink: FactSink): void {
  if (isSummaryTurn(message.turnId)) {
    summaryBlockFacts(message, sink);
    return;
  }
  for (const block of message.content) {
    if (block.type === "text") {
      sink.source = `${message.role} message ${sourceLabel(message.id)}`;
      if (message.role === "user") userWordFacts(block.text, sink);
      else textTokenFacts(block.text, sink);
      continue;
    }
    if (block.type === "tool_use") sink.source = `tool call ${sourceLabel(block.id)}`;
    else if (block.type === "tool_result")
      sink.source = `tool call ${sourceLabel(block.toolUseId)}`;
    else continue;
    const texts: string[] = [];
    blockTexts(block, texts);
    for (const text of texts) textTokenFacts(text, sink);
  }
}

function factKey(fact: Fact): string {
  return `${fact.kind}\u0000${fact.kind === "constraint" ? normalize(fact.text) : fact.text}`;
}

/**
 * The identifiers, paths and user constraints of a part of a conversation, once each, in order
 * of first appearance, each with the message or tool call it first appeared in. Constraints
 * come from the user's own text (not tool results); in a summary message, only from the words
 * it keeps verbatim and from its facts section's cited lines, never from the summary's text.
 *
 * @example
 * extractCitedFacts(folded).filter((fact) => fact.kind === "constraint")
 */
export function extractCitedFacts(messages: readonly Message[]): CitedFact[] {
  const found: CitedFact[] = [];
  const sink: FactSink = { facts: found, seen: new Set(), source: "" };
  for (const message of messages) messageFacts(message, sink);
  const seen = new Set<string>();
  return found.filter((fact) => {
    const key = factKey(fact);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * {@link extractCitedFacts} without the sources.
 *
 * @example
 * extractFacts(folded).filter((fact) => fact.kind === "constraint")
 */
export function extractFacts(messages: readonly Message[]): Fact[] {
  return extractCitedFacts(messages).map(({ kind, text }) => ({ kind, text }));
}

const SOURCE_OPEN = " (from ";

function sectionLine(fact: Fact | CitedFact, cite: boolean): string {
  const from = cite && "source" in fact ? `${SOURCE_OPEN}${fact.source})` : "";
  return `\n- ${LABELS[fact.kind]}: ${fact.text}${from}`;
}

/** The cited fact a section line holds (`- path: src/a.ts (from tool call toolu_1)`), if any. */
export function parseSectionLine(line: string): CitedFact | undefined {
  const colon = line.indexOf(": ");
  if (!line.startsWith("- ") || colon === -1 || !line.endsWith(")")) return undefined;
  const label = line.slice(2, colon);
  const kind = label === "id" ? "identifier" : label;
  if (kind !== "constraint" && kind !== "path" && kind !== "identifier") return undefined;
  const open = line.lastIndexOf(SOURCE_OPEN);
  if (open <= colon) return undefined;
  const text = line.slice(colon + 2, open);
  const source = line.slice(open + SOURCE_OPEN.length, -1);
  return text === "" || source === "" ? undefined : { kind, text, source };
}

/**
 * Checks a summary against the part it replaces: the identifiers, paths and user constraints of
 * the folded part found neither in the summary nor in the kept messages (identifiers and paths
 * exactly; constraints case- and whitespace-insensitively; each as whole words), and a section
 * listing those that fit in `maxTokens`: constraints first, then paths, then identifiers, the
 * newest first within each kind; with `cite`, each line names its source. Deterministic; no
 * model call; linear in its input (see {@link FactPresence}).
 *
 * @example
 * const check = checkSummaryFacts({ folded, summary, kept, maxTokens: DEFAULT_FACTS_SECTION_TOKENS });
 * const text = check.section === "" ? summary : `${summary}\n\n${check.section}`;
 */
export function checkSummaryFacts(input: SummaryFactsCheckInput): SummaryFactsCheck {
  const texts = [input.summary];
  for (const message of input.kept) for (const block of message.content) blockTexts(block, texts);
  const presence = new FactPresence(texts);
  const cite = input.cite === true;
  const candidates = cite ? extractCitedFacts(input.folded) : extractFacts(input.folded);
  const missing = candidates.filter((fact) => !presence.has(fact));
  const budget = tokensToChars(Math.floor(input.maxTokens));
  const added: Fact[] = [];
  let section = SECTION_HEADING;
  if (!(section.length <= budget)) return { missing, added, section: "" };
  for (const kind of ["constraint", "path", "identifier"] as const) {
    for (const fact of missing.filter((each) => each.kind === kind).reverse()) {
      const line = sectionLine(fact, cite);
      if (section.length + line.length > budget) continue;
      section += line;
      added.push(fact);
    }
  }
  return { missing, added, section: added.length === 0 ? "" : section };
}
