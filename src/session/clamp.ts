import type { ArchiveRecord } from "../core/archive-record.js";
import type { ContentBlock, Message } from "../core/message.js";
import { tokensToChars } from "../core/tokens.js";
import { headEnd, tailStart } from "../internal/whole-characters.js";

/** A block cut to fit the window as it was appended. */
export interface ClampedBlock {
  blockIndex: number;
  toolUseId?: string;
  /** The text as it was. */
  original: string;
  /** Characters kept of it. */
  keptChars: number;
  /** The recall handle its marker names, when the session keeps an archive. */
  handle?: string;
}

/** Share of what is kept that comes from the head of the text; the rest is its tail. */
const HEAD_SHARE = 0.6;

function clampText(
  text: string,
  maxChars: number,
  handle: string | undefined,
): { text: string; kept: number } {
  const recall = handle === undefined ? "" : ` [recall ${handle}]`;
  const marker = (cut: number) =>
    `\n[… ${cut} characters cut to fit the context window …]${recall}\n`;
  // The marker fits inside `maxChars` with what is kept (it is longest for the most cut): a text
  // clamped once is not too long, so a stateless path sent it back clamps it no further.
  const room = Math.max(0, maxChars - marker(text.length).length);
  const share = Math.floor(room * HEAD_SHARE);
  // Never half a surrogate pair: a lone one makes every later request refused.
  const head = headEnd(text, share);
  const tail = tailStart(text, text.length - (room - share));
  return {
    text: `${text.slice(0, head)}${marker(tail - head)}${text.slice(tail)}`,
    kept: head + text.length - tail,
  };
}

/**
 * Cuts every text of a user message longer than `maxTokens` (by the local estimate) to its
 * head and tail: a text block, a tool result's string content, or a text part of a tool result.
 * No one block can then push a request over the window. The same message when nothing is cut.
 */
export function clampMessage(
  message: Message,
  maxTokens: number,
  nextHandle?: (original: string, toolUseId: string | undefined) => string,
): { message: Message; clamped: ClampedBlock[] } {
  const maxChars = tokensToChars(maxTokens);
  const clamped: ClampedBlock[] = [];
  if (message.role !== "user" || !message.content.some((block) => holdsLongText(block, maxChars)))
    return { message, clamped };
  const cut = (blockIndex: number, original: string, toolUseId?: string) => {
    const handle = nextHandle?.(original, toolUseId);
    const { text, kept } = clampText(original, maxChars, handle);
    clamped.push({
      blockIndex,
      ...(toolUseId === undefined ? {} : { toolUseId }),
      original,
      keptChars: kept,
      ...(handle === undefined ? {} : { handle }),
    });
    return text;
  };
  const content = message.content.map((block, blockIndex): ContentBlock => {
    if (block.type === "text" && block.text.length > maxChars) {
      return { ...block, text: cut(blockIndex, block.text) };
    }
    if (block.type !== "tool_result") return block;
    const toolUseId = block.toolUseId;
    if (typeof block.content === "string") {
      if (block.content.length <= maxChars) return block;
      return { ...block, content: cut(blockIndex, block.content, toolUseId) };
    }
    let changed = false;
    const parts = block.content.map((part) => {
      if (part.type !== "text" || part.text.length <= maxChars) return part;
      changed = true;
      return { ...part, text: cut(blockIndex, part.text, toolUseId) };
    });
    return changed ? { ...block, content: parts } : block;
  });
  return clamped.length === 0
    ? { message, clamped }
    : { message: { ...message, content } as Message, clamped };
}

/** Whether a block holds a text {@link clampMessage} would cut (read only: lengths). */
export function holdsLongText(block: ContentBlock, maxChars: number): boolean {
  if (block.type === "text") return block.text.length > maxChars;
  if (block.type !== "tool_result") return false;
  if (typeof block.content === "string") return block.content.length > maxChars;
  return block.content.some((part) => part.type === "text" && part.text.length > maxChars);
}

/** What the archive keeps of a clamped block: the original tool result, or the original message. */
export function clampRecord(handle: string, block: ClampedBlock, message: Message): ArchiveRecord {
  const original = message.content[block.blockIndex];
  if (block.toolUseId !== undefined && original?.type === "tool_result")
    return { handle, kind: "tool_result", toolUseId: block.toolUseId, original };
  return { handle, kind: "messages", original: [message] };
}
