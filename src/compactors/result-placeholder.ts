import type { ToolResultBlock } from "../core/message.js";
import { isPlaceholderText } from "../internal/recall-mark.js";
import { toolResultText } from "../internal/tool-result-text.js";
import { MENTIONS_OPEN, withMentions } from "./path-mentions.js";

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
  const content = block.content;
  const done =
    typeof content === "string" &&
    (isPlaceholderText(content, replacement) ||
      (content.startsWith(base) && content.startsWith(MENTIONS_OPEN, base.length)));
  return { replacement, done };
}
