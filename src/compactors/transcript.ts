import { isCompactionBlock, isSystemMessageBlock } from "../core/conversation-structure.js";
import { isGeminiThought } from "../core/gemini-contents.js";
import type {
  ContentBlock,
  JsonValue,
  Message,
  OpaqueBlock,
  ToolResultBlock,
} from "../core/message.js";
import { isSummaryTurn } from "../core/turn.js";
import { headOf, tailStart } from "../internal/whole-characters.js";

/** Per-item character caps of one rendering of the transcript. */
interface ItemCaps {
  toolInputChars: number;
  toolResultChars: number;
  textChars: number;
}

/** How {@link formatTranscript} fits the transcript into its budget. */
export interface TranscriptLimits {
  /** Characters of one tool input at most. */
  maxToolInputChars: number;
  /** Characters of one tool result at most. */
  maxToolResultChars: number;
  /** Characters of the whole transcript at most. */
  maxChars: number;
}

const TAG_PATTERN = /<(\/?)(tool_output|tool_input|conversation)/gi;

/** Neutralises our delimiters inside quoted content so data cannot pose as structure. */
function escapeTags(text: string): string {
  return text.replace(TAG_PATTERN, "<\\$1$2");
}

/** A tool name, id or block type as the transcript shows it: one line, no quotes or brackets. */
function label(value: string): string {
  return value.replace(/[^\w.:@/-]/g, "_").slice(0, 200);
}

/** Cuts `text` to `limit` characters (never inside a surrogate pair), marking the cut. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = headOf(text, limit);
  return `${head}…[truncated ${text.length - head.length} chars]`;
}

function toolResultText(block: ToolResultBlock, summaries: ReadonlyMap<string, string>): string {
  const summary = summaries.get(block.toolUseId) ?? block.compactSummary;
  if (summary !== undefined) return `(compact summary) ${summary}`;
  if (typeof block.content === "string") return block.content;
  return block.content.map((part) => blockText(part)).join("\n");
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return "[image]";
    case "opaque":
      return `[${String(block.block["type"] ?? "unknown")} block] ${JSON.stringify(block.block)}`;
    default:
      return `[${block.type}]`;
  }
}

/** The text of a system message's content (a string, or its text blocks). */
function systemMessageText(content: JsonValue | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      typeof part === "object" &&
      part !== null &&
      !Array.isArray(part) &&
      typeof part["text"] === "string"
        ? part["text"]
        : "",
    )
    .filter((text) => text !== "")
    .join("\n");
}

/** One line of the transcript; user lines are given up last when the budget is tight. */
export interface Line {
  text: string;
  fromUser: boolean;
}

/**
 * The stored summaries for the results of `messages`, but for ids a call of `messages` used
 * again after a result (a provider numbering each reply's calls): the stored one is the latest
 * call's, and each of those results shows its own.
 */
function storedSummaries(
  messages: readonly Message[],
  summaries: ReadonlyMap<string, string>,
): ReadonlyMap<string, string> {
  const laterUses = new Set<string>();
  const reused = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index -= 1)
    for (const block of messages[index]!.content) {
      if (block.type === "tool_use") laterUses.add(block.id);
      else if (block.type === "tool_result" && laterUses.has(block.toolUseId))
        reused.add(block.toolUseId);
    }
  if (reused.size === 0) return summaries;
  const kept = new Map(summaries);
  for (const id of reused) kept.delete(id);
  return kept;
}

function renderLines(
  messages: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  caps: ItemCaps,
): Line[] {
  const lines: Line[] = [];
  const toolNames = new Map<string, string>();
  // A stored summary is the latest call's with its id: not of a result a later call reused it after.
  const stored = summaries.size === 0 ? summaries : storedSummaries(messages, summaries);
  for (const message of messages) {
    if (isSummaryTurn(message.turnId) && message.role === "user") {
      const text = message.content.map(blockText).join("\n");
      lines.push({ text: `[Earlier summary]\n${escapeTags(text)}`, fromUser: true });
      continue;
    }
    for (const block of message.content) {
      const line = renderBlock(message.role, block, stored, caps, toolNames);
      if (line !== undefined) lines.push(line);
    }
  }
  return lines;
}

function renderBlock(
  role: Message["role"],
  block: ContentBlock,
  summaries: ReadonlyMap<string, string>,
  caps: ItemCaps,
  toolNames: Map<string, string>,
): Line | undefined {
  const speaker = role === "user" ? "User" : "Assistant";
  switch (block.type) {
    case "text": {
      if (block.text.trim() === "") return undefined;
      const limit = role === "user" ? Math.max(caps.textChars, 2000) : caps.textChars;
      return {
        text: `[${speaker}] ${escapeTags(truncate(block.text, limit))}`,
        fromUser: role === "user",
      };
    }
    case "tool_use": {
      toolNames.set(block.id, block.name);
      const input =
        caps.toolInputChars > 0
          ? truncate(JSON.stringify(block.input), caps.toolInputChars)
          : "…[omitted]";
      return {
        text: `[Assistant called tool ${label(block.name)} (id ${label(block.id)})]\n<tool_input>${escapeTags(input)}</tool_input>`,
        fromUser: false,
      };
    }
    case "tool_result": {
      const name = toolNames.get(block.toolUseId) ?? "unknown";
      const body =
        caps.toolResultChars > 0
          ? truncate(toolResultText(block, summaries), caps.toolResultChars)
          : "…[omitted]";
      const error = block.isError ? ' error="true"' : "";
      return {
        text: `<tool_output tool="${label(name)}" id="${label(block.toolUseId)}"${error}>\n${escapeTags(body)}\n</tool_output>`,
        fromUser: false,
      };
    }
    case "image":
      return { text: `[${speaker} sent an image]`, fromUser: role === "user" };
    case "opaque":
      return isGeminiThought(block) ? undefined : renderOpaque(speaker, block, caps);
    case "thinking":
    case "redacted_thinking":
      // Private reasoning: not part of what the successor needs, and costly.
      return undefined;
  }
}

/** An opaque block's line: an earlier compaction's summary, a system message, or its text. */
function renderOpaque(speaker: string, block: OpaqueBlock, caps: ItemCaps): Line | undefined {
  if (isCompactionBlock(block) && typeof block.block["content"] === "string") {
    return { text: `[Earlier summary]\n${escapeTags(block.block["content"])}`, fromUser: true };
  }
  if (isSystemMessageBlock(block)) {
    // Operator instructions the app added mid-conversation: given up last, like the user's.
    const text = systemMessageText(block.block.message["content"]);
    return text === "" ? undefined : { text: `[System] ${escapeTags(text)}`, fromUser: true };
  }
  return {
    text: `[${speaker}] <tool_output tool="${label(String(block.block["type"] ?? "block"))}">\n${escapeTags(truncate(blockText(block), Math.max(caps.toolResultChars, 0)))}\n</tool_output>`,
    fromUser: false,
  };
}

/** Characters of `lines` joined, one newline each. */
export function linesLength(lines: readonly Line[]): number {
  let total = 0;
  for (const line of lines) total += line.text.length + 1;
  return total;
}

/**
 * Renders old messages as a transcript for the summarizer: user and assistant text, tool
 * calls with their inputs, tool outputs (compact summaries where present) framed as data.
 * It tightens per-item caps, then drops the oldest non-user lines, then the oldest lines,
 * until the whole fits in `limits.maxChars`.
 */
export function formatTranscript(
  messages: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  limits: TranscriptLimits,
): string {
  const levels: ItemCaps[] = [
    {
      toolInputChars: limits.maxToolInputChars,
      toolResultChars: limits.maxToolResultChars,
      textChars: Number.POSITIVE_INFINITY,
    },
    {
      toolInputChars: Math.min(limits.maxToolInputChars, 400),
      toolResultChars: Math.min(limits.maxToolResultChars, 1000),
      textChars: 4000,
    },
    {
      toolInputChars: Math.min(limits.maxToolInputChars, 100),
      toolResultChars: Math.min(limits.maxToolResultChars, 200),
      textChars: 1000,
    },
    { toolInputChars: 0, toolResultChars: 0, textChars: 300 },
  ];
  let lines: Line[] = [];
  for (const caps of levels) {
    lines = renderLines(messages, summaries, caps);
    if (linesLength(lines) <= limits.maxChars) return join(lines, 0);
  }
  let omitted = 0;
  let total = linesLength(lines);
  // Give up tool traffic and assistant text first, oldest first; the user's words last.
  for (const fromUser of [false, true]) {
    lines = lines.filter((line) => {
      if (total <= limits.maxChars || line.fromUser !== fromUser) return true;
      total -= line.text.length + 1;
      omitted += 1;
      return false;
    });
  }
  const joined = join(lines, omitted);
  return joined.slice(tailStart(joined, Math.max(0, joined.length - limits.maxChars)));
}

function join(lines: readonly Line[], omitted: number): string {
  const body = lines.map((line) => line.text).join("\n");
  return omitted === 0
    ? body
    : `[… ${omitted} earlier items omitted to fit the summarizer's budget …]\n${body}`;
}

/**
 * Renders messages as transcript lines with the full per-item caps and no overall budget,
 * for summarizing in chunks.
 */
export function transcriptLines(
  messages: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  limits: Omit<TranscriptLimits, "maxChars">,
): Line[] {
  return renderLines(messages, summaries, {
    toolInputChars: limits.maxToolInputChars,
    toolResultChars: limits.maxToolResultChars,
    textChars: Number.POSITIVE_INFINITY,
  });
}
