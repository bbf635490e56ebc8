import { type CompactionResult, emptyCompactionResult } from "../core/compactor.js";
import type { Message, ToolResultBlock } from "../core/message.js";
import { MENTIONS_OPEN } from "./path-mentions.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

/** Whether a tool result's content is {@link REDACTION_NOTICE}, perhaps with the paths it kept. */
function isRedaction(content: ToolResultBlock["content"]): boolean {
  return (
    content === REDACTION_NOTICE ||
    (typeof content === "string" && content.startsWith(`${REDACTION_NOTICE}${MENTIONS_OPEN}`))
  );
}

/**
 * Counts what masking changed between two versions of the same messages (same length and
 * order): tool results summarized or redacted, tool inputs cleared.
 */
export function maskingChanges(
  before: readonly Message[],
  after: readonly Message[],
): CompactionResult {
  const result = emptyCompactionResult();
  after.forEach((message, index) => {
    const original = before[index];
    if (original === undefined || original === message) return;
    message.content.forEach((block, blockIndex) => {
      const was = original.content[blockIndex];
      if (was === undefined || was === block) return;
      if (block.type === "tool_result" && was.type === "tool_result") {
        if (block.content === was.content) return;
        if (isRedaction(block.content)) result.toolResultsRedacted += 1;
        else result.toolResultsSummarized += 1;
      } else if (
        block.type === "tool_use" &&
        was.type === "tool_use" &&
        block.input !== was.input
      ) {
        result.toolInputsCleared = (result.toolInputsCleared ?? 0) + 1;
      }
    });
  });
  return result;
}
