import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import {
  answerCompactCall,
  COMPACT_TOOL_DESCRIPTION,
  COMPACT_TOOL_INPUT_SCHEMA,
  COMPACT_TOOL_NAME,
  type CompactToolSession,
} from "../core/compact-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";

/**
 * The tool that lets the model ask for a compaction at a natural boundary (a sub-task done, an
 * exploration finished; not mid-derivation): add it to `tools`, and answer its calls with
 * {@link answerCompact}. The compaction happens at the loop's next `maybeCompact`, before the
 * next request.
 */
export const COMPACT_TOOL = {
  name: COMPACT_TOOL_NAME,
  description: COMPACT_TOOL_DESCRIPTION,
  input_schema: {
    ...COMPACT_TOOL_INPUT_SCHEMA,
    properties: { ...COMPACT_TOOL_INPUT_SCHEMA.properties },
  },
} satisfies Tool;

/**
 * Answers a {@link COMPACT_TOOL} call: `session.requestCompaction` with the call's `notes` as
 * the summarizer's instructions, and a tool result saying the compaction happens before the
 * next request (an error result, scheduling nothing, for notes that are not a string or too long).
 *
 * @example
 * if (call.name === COMPACT_TOOL.name) results.push(answerCompact(session, call));
 */
export function answerCompact(
  session: CompactToolSession,
  call: { id: string; input: unknown },
): ToolResultInput {
  return answerCompactCall(session, call.id, call.input);
}
