import { parsedCallArguments } from "../core/call-arguments.js";
import {
  answerCompactCall,
  type CompactToolSession,
  compactToolSpec,
} from "../core/compact-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { functionTool } from "./function-tools.js";

/**
 * The Responses API function tool that lets the model ask for a compaction at a natural
 * boundary (a sub-task done; not mid-derivation): add it to `tools`, and answer its
 * `function_call` items with {@link answerCompactFunctionCall}.
 */
export const COMPACT_FUNCTION_TOOL = functionTool(compactToolSpec());

/**
 * Answers a {@link COMPACT_FUNCTION_TOOL} call (its `arguments` JSON): `session.requestCompaction`
 * with the call's `notes`, and the tool result for `addToolResults` (an error result,
 * scheduling nothing, for arguments that are not JSON or notes that are not a string).
 *
 * @example
 * if (call.name === COMPACT_FUNCTION_TOOL.name) results.push(answerCompactFunctionCall(session, call));
 */
export function answerCompactFunctionCall(
  session: CompactToolSession,
  call: { call_id: string; arguments: string },
): ToolResultInput {
  const parsed = parsedCallArguments(call.call_id, call.arguments, " No compaction was scheduled.");
  return "input" in parsed ? answerCompactCall(session, call.call_id, parsed.input) : parsed;
}
