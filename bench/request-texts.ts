import { SECTION_HEADING as FACTS_HEADING } from "../src/compactors/facts-check.js";
import { LEDGER_HEADING } from "../src/compactors/file-ledger.js";
import { MENTIONS_OPEN } from "../src/compactors/path-mentions.js";
import { SUMMARY_PREFIX } from "../src/index.js";
import { jsonStrings, resultText } from "./next-use.js";
import { type WireBlock, type WireMessage, wireBlocks } from "./request-checks.js";

/**
 * A request's text, whole and strict, for next-use retention. Strict leaves out what the
 * library writes as bare lists of paths and ids: a reference found only there is named but its
 * content is gone. The lists: the file ledger block, the facts section's `- path:` and `- id:`
 * lines, a placeholder's ` (mentions: …)`, and the stand-in summarizer's `Files:` line.
 */

/** The stand-in summarizer's list of paths (`bench/extractive-summarizer.ts`). */
export const SUMMARY_FILES_LINE = "Files: ";
const RECALL_AFTER_MENTIONS = ") [recall ";

const isLibraryListLine = (line: string) =>
  line.startsWith("- path: ") || line.startsWith("- id: ");

/** A tool result the library replaced (placeholder or clamp), without its list of mentioned paths. */
export function withoutMentions(text: string): string {
  const at = text.indexOf(MENTIONS_OPEN);
  if (at < 0) return text;
  let end = text.indexOf(RECALL_AFTER_MENTIONS, at);
  if (end < 0) end = text.lastIndexOf(")");
  return end > at ? text.slice(0, at) + text.slice(end + 1) : text;
}

/** A summary block (or a facts section) without its lists: the facts' path/id lines, the Files line. */
export function withoutSummaryLists(text: string): string {
  let inFacts = text.startsWith(FACTS_HEADING);
  const kept: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(FACTS_HEADING)) inFacts = true;
    if (inFacts && isLibraryListLine(line)) continue;
    if (!inFacts && line.startsWith(SUMMARY_FILES_LINE)) continue;
    kept.push(line);
  }
  return kept.join("\n");
}

/** A text block in the strict text: nothing for the ledger, a summary without its lists. */
function strictText(text: string): string | undefined {
  if (text.startsWith(LEDGER_HEADING)) return undefined;
  if (text.startsWith(SUMMARY_PREFIX) || text.startsWith(FACTS_HEADING))
    return withoutSummaryLists(text);
  return text;
}

/** A block's text, whole and strict (`undefined`: not in the strict text). */
function blockTexts(
  block: WireBlock,
  originals: ReadonlyMap<string, string>,
): { full: string[]; strict: string[] } {
  if (block["type"] === "text") {
    const text = String(block["text"]);
    const strict = strictText(text);
    return { full: [text], strict: strict === undefined ? [] : [strict] };
  }
  if (block["type"] === "tool_result") {
    const text = resultText(block["content"]);
    const replaced = originals.get(String(block["tool_use_id"])) !== text;
    return { full: [text], strict: [replaced ? withoutMentions(text) : text] };
  }
  if (block["type"] === "tool_use") {
    const strings = jsonStrings(block["input"]);
    return { full: strings, strict: strings };
  }
  const text =
    block["type"] === "thinking" ? String(block["thinking"] ?? "") : JSON.stringify(block);
  return { full: [text], strict: [text] };
}

/**
 * The text of a request (the system prompt, then every block), whole and strict. `originals`:
 * each tool call id's recorded result text, to tell a result the library replaced from one it
 * left alone.
 */
export function requestTexts(
  system: string,
  messages: readonly WireMessage[],
  originals: ReadonlyMap<string, string>,
): { full: string; strict: string } {
  const full = [system];
  const strict = [system];
  for (const message of messages) {
    for (const block of wireBlocks(message)) {
      const texts = blockTexts(block, originals);
      full.push(...texts.full);
      strict.push(...texts.strict);
    }
  }
  return { full: full.join("\n"), strict: strict.join("\n") };
}
