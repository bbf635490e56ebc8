import type { ContentBlock } from "./message.js";

// The text format of what a summary message holds: read and written by compactors and by
// every adapter that converts messages (so none of them imports a compactor).

/** The prefix of the summary message's text. */
export const SUMMARY_PREFIX = "[Previous conversation summary]: ";

/** The prefix of a user message kept verbatim in the summary message. */
export const EARLIER_USER_MESSAGE_PREFIX = "[Earlier user message]: ";

/** Whether a block is a summary message's text: the summary, or a user message it keeps verbatim. */
export function isSummaryText(block: ContentBlock | undefined): boolean {
  return (
    block?.type === "text" &&
    (block.text.startsWith(SUMMARY_PREFIX) || block.text.startsWith(EARLIER_USER_MESSAGE_PREFIX))
  );
}
