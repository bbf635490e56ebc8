import { parsedCallArguments } from "../core/call-arguments.js";
import {
  answerRecallCall,
  type RecallToolSession,
  recallToolSpec,
} from "../core/recall-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { type RecallToolOptions, recallSourceOf } from "../session/recall-source.js";
import { functionTool } from "./function-tools.js";

/**
 * The Responses API function tool that lets the model fetch back what compaction removed: add
 * it to `tools`, and answer its `function_call` items with {@link answerRecallFunctionCall}.
 * Placeholders and summaries name their handles (`[recall r7-3f2a]`).
 */
export const RECALL_FUNCTION_TOOL = functionTool(recallToolSpec());

/**
 * Answers a {@link RECALL_FUNCTION_TOOL} call (its `arguments` JSON) from the session's archive,
 * or on a stateless path from the `archive` (and `sessionId`) given to `compactResponsesInput`:
 * the original as the tool result for `addToolResults`, or an error result saying why (an
 * unknown handle, arguments that are not JSON).
 *
 * @example
 * if (call.name === RECALL_FUNCTION_TOOL.name) results.push(await answerRecallFunctionCall(session, call));
 * @throws {ValidationError} for a source that is neither (naming `recallTool options`).
 */
export async function answerRecallFunctionCall(
  source: RecallToolSession | RecallToolOptions,
  call: { call_id: string; arguments: string },
): Promise<ToolResultInput> {
  const session = recallSourceOf(source);
  const parsed = parsedCallArguments(call.call_id, call.arguments);
  return "input" in parsed ? answerRecallCall(session, call.call_id, parsed.input) : parsed;
}
