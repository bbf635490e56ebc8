import type { ToolResultBlock } from "../core/message.js";
import { isPlaceholderText, MAX_RECALL_MARK_LENGTH } from "../internal/recall-mark.js";
import { toolResultText } from "../internal/tool-result-text.js";
import { MAX_MENTIONS_SUFFIX_LENGTH, MENTIONS_OPEN, withMentions } from "./path-mentions.js";

/** The most a placeholder adds to its base: the paths it names and a recall mark. */
const MAX_PLACEHOLDER_EXTRA = MAX_MENTIONS_SUFFIX_LENGTH + MAX_RECALL_MARK_LENGTH;

/**
 * What replaces `block`: `base`, with the paths the result names when `mentions` (a grep hit, a
 * stack trace, a listing outlives its output); `done` when the block is already that (or `base`
 * with mentions), perhaps naming its recall handle.
 */
export function placeholderOf(
  block: ToolResultBlock,
  base: string,
  mentions: boolean,
): { replacement: string; done: boolean } {
  const replacement = mentions ? withMentions(base, toolResultText(block.content)) : base;
  return { replacement, done: isPlaceholder(block.content, base, replacement) };
}

/**
 * Whether a result's `content` already is `replacement` (or `base` with mentions), perhaps
 * naming its recall handle: {@link placeholderOf}'s `done`, without building the replacement.
 */
export function isPlaceholder(
  content: ToolResultBlock["content"],
  base: string,
  replacement: string,
): boolean {
  // A long original is told by its length alone: its text is not read again.
  return (
    typeof content === "string" &&
    content.length <= base.length + MAX_PLACEHOLDER_EXTRA &&
    (isPlaceholderText(content, replacement) ||
      (content.startsWith(base) && content.startsWith(MENTIONS_OPEN, base.length)))
  );
}
