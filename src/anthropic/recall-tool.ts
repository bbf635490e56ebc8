import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import type { ArchiveRecord } from "../core/archive-record.js";
import {
  RECALL_HANDLE_DESCRIPTION,
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_NAME,
  recallText,
} from "../core/recall-text.js";
import type { ToolResultInput } from "../core/tool-result-input.js";

export { recallText };

/**
 * The tool that lets the model fetch back what compaction removed: add it to `tools`, and
 * answer its calls with {@link answerRecall}. Placeholders and summaries name their handles
 * (`[recall r7-3f2a]`).
 */
export const RECALL_TOOL = {
  name: RECALL_TOOL_NAME,
  description: RECALL_TOOL_DESCRIPTION,
  input_schema: {
    type: "object",
    properties: {
      handle: { type: "string", description: RECALL_HANDLE_DESCRIPTION },
    },
    required: ["handle"],
  },
} satisfies Tool;

/**
 * Answers a {@link RECALL_TOOL} call from the session's archive: the original as the tool
 * result, or an error result saying why (an unknown handle, one from another session).
 *
 * @example
 * if (call.name === RECALL_TOOL.name) results.push(await answerRecall(session, call));
 */
export async function answerRecall(
  session: { recall(handle: string): Promise<ArchiveRecord> },
  call: { id: string; input: unknown },
): Promise<ToolResultInput> {
  const handle = (call.input as { handle?: unknown } | null)?.handle;
  try {
    const record = await session.recall(String(handle));
    return { type: "tool_result", tool_use_id: call.id, content: recallText(record) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: "tool_result", tool_use_id: call.id, content: message, is_error: true };
  }
}
