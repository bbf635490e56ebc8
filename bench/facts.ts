import type { ContentBlock, Message } from "../src/index.js";
import type { FactKind } from "./workload.js";

// One pattern per fact kind; the workload's filler can never match them.
const PATTERNS: Record<FactKind, RegExp> = {
  constraint: /\b(?:Never|Always) [^.\n]*\./g,
  id: /\b[A-Z]{3}-\d{4,6}\b/g,
  number: /\b[a-z_]+=\d+\b/g,
  path: /\bsrc\/[a-z]+\/[a-z]+(?:-\d+)?\.ts\b/g,
};

/** The kinds in the order a summariser gives them room: the user's words first. */
export const FACT_KINDS: readonly FactKind[] = ["constraint", "id", "number", "path"];

/** A fact-like string found in a text, with where it was last seen. */
export interface FoundFact {
  text: string;
  kind: FactKind;
  /** Offset of its last occurrence. */
  lastSeen: number;
}

/** Every fact-like string in `text`, once each. */
export function findFacts(text: string): FoundFact[] {
  const found = new Map<string, FoundFact>();
  for (const kind of FACT_KINDS) {
    for (const match of text.matchAll(PATTERNS[kind])) {
      found.set(match[0], { text: match[0], kind, lastSeen: match.index });
    }
  }
  return [...found.values()];
}

function blockTexts(block: ContentBlock, into: string[]): void {
  switch (block.type) {
    case "text":
      into.push(block.text);
      return;
    case "tool_use":
      into.push(JSON.stringify(block.input));
      return;
    case "tool_result":
      if (typeof block.content === "string") into.push(block.content);
      else for (const part of block.content) blockTexts(part, into);
      return;
    default:
      return;
  }
}

/** The fact-like strings present in what a request sends (text, tool inputs, tool results). */
export function factsInMessages(messages: readonly Message[]): Set<string> {
  const present = new Set<string>();
  const texts: string[] = [];
  for (const message of messages) for (const block of message.content) blockTexts(block, texts);
  for (const text of texts) for (const fact of findFacts(text)) present.add(fact.text);
  return present;
}
