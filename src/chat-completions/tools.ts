import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { parsedCallArguments } from "../core/call-arguments.js";
import {
  answerCompactCall,
  type CompactToolSession,
  compactToolSpec,
} from "../core/compact-tool-call.js";
import {
  answerRecallCall,
  type RecallToolSession,
  recallToolSpec,
} from "../core/recall-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { type RecallToolOptions, recallSourceOf } from "../session/recall-source.js";

/** A `tool_calls` entry as the two answers below read it. */
export interface ChatToolCall {
  id: string;
  function: { name: string; arguments: string };
}

function chatTool(spec: { name: string; description: string; schema: object }) {
  return {
    type: "function" as const,
    function: { name: spec.name, description: spec.description, parameters: { ...spec.schema } },
  } satisfies ChatCompletionFunctionTool;
}

/**
 * The function tool that lets the model fetch back what compaction removed: add it to
 * `tools`, and answer its calls with {@link answerRecallToolCall}. Placeholders and summaries
 * name their handles (`[recall r7-3f2a]`).
 */
export const RECALL_CHAT_TOOL = chatTool(recallToolSpec());

/**
 * The function tool that lets the model ask for a compaction at a natural boundary (a
 * sub-task done; not mid-derivation): add it to `tools`, and answer its calls with
 * {@link answerCompactToolCall}.
 */
export const COMPACT_CHAT_TOOL = chatTool(compactToolSpec());

/**
 * Answers a {@link RECALL_CHAT_TOOL} call from the session's archive, or on a stateless path
 * from the `archive` (and `sessionId`) given to `compactChatMessages`: the original as the tool
 * result for `addToolResults`, or an error result saying why (an unknown handle, arguments that
 * are not JSON).
 *
 * @example
 * if (call.function.name === RECALL_CHAT_TOOL.function.name) results.push(await answerRecallToolCall(session, call));
 * @throws {ValidationError} for a source that is neither (naming `recallTool options`).
 */
export async function answerRecallToolCall(
  source: RecallToolSession | RecallToolOptions,
  call: ChatToolCall,
): Promise<ToolResultInput> {
  const session = recallSourceOf(source);
  const parsed = parsedCallArguments(call.id, call.function?.arguments);
  return "input" in parsed ? answerRecallCall(session, call.id, parsed.input) : parsed;
}

/**
 * Answers a {@link COMPACT_CHAT_TOOL} call: `session.requestCompaction` with the call's
 * `notes`, and the tool result for `addToolResults` (an error result, scheduling nothing, for
 * arguments that are not JSON or notes that are not a string).
 *
 * @example
 * if (call.function.name === COMPACT_CHAT_TOOL.function.name) results.push(answerCompactToolCall(session, call));
 */
export function answerCompactToolCall(
  session: CompactToolSession,
  call: ChatToolCall,
): ToolResultInput {
  const parsed = parsedCallArguments(
    call.id,
    call.function?.arguments,
    " No compaction was scheduled.",
  );
  return "input" in parsed ? answerCompactCall(session, call.id, parsed.input) : parsed;
}
