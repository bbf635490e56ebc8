import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import {
  answerRecallCall,
  type RecallToolSession,
  recallToolSpec,
} from "../core/recall-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { type RecallToolOptions, recallSourceOf } from "../session/recall-source.js";

const { name, description, schema } = recallToolSpec();

/**
 * The tool that lets the model fetch back what compaction removed: add it to `tools`, and
 * answer its calls with {@link answerRecall}. Placeholders and summaries name their handles
 * (`[recall r7-3f2a]`).
 */
export const RECALL_TOOL = { name, description, input_schema: schema } satisfies Tool;

/**
 * Answers a {@link RECALL_TOOL} call from the session's archive, or on a stateless path from
 * the `archive` (and `sessionId`) given to `compactAnthropicMessages`: the original as the tool
 * result, or an error result saying why (an unknown handle, one from another session).
 *
 * @example
 * if (call.name === RECALL_TOOL.name) results.push(await answerRecall(session, call));
 * @throws {ValidationError} for a source that is neither (naming `recallTool options`).
 */
export async function answerRecall(
  source: RecallToolSession | RecallToolOptions,
  call: { id: string; input: unknown },
): Promise<ToolResultInput> {
  return answerRecallCall(recallSourceOf(source), call.id, call.input);
}
