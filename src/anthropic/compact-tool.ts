import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import {
  answerCompactCall,
  type CompactToolSession,
  compactToolSpec,
} from "../core/compact-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";

const { name, description, schema } = compactToolSpec();

/**
 * The tool that lets the model ask for a compaction at a natural boundary (a sub-task done, an
 * exploration finished; not mid-derivation): add it to `tools`, and answer its calls with
 * {@link answerCompact}. The compaction happens at the loop's next `maybeCompact`, before the
 * next request.
 */
export const COMPACT_TOOL = { name, description, input_schema: schema } satisfies Tool;

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
