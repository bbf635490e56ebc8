import type { FunctionDeclaration } from "@google/genai";
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

/** A tool spec as a Gemini function declaration, its input schema as JSON Schema. */
const declaration = (spec: { name: string; description: string; schema: object }) =>
  ({
    name: spec.name,
    description: spec.description,
    parametersJsonSchema: spec.schema,
  }) satisfies FunctionDeclaration;

/**
 * The function that lets the model fetch back what compaction removed: add it to the
 * `functionDeclarations` of your tools, and answer its calls with {@link answerRecall}.
 * Placeholders and summaries name their handles (`[recall r7-3f2a]`).
 */
export const RECALL_FUNCTION = declaration(recallToolSpec());

/**
 * The function that lets the model ask for a compaction at a natural boundary (a sub-task
 * done; not mid-derivation): add it to the `functionDeclarations` of your tools, and answer its
 * calls with {@link answerCompact}. The compaction happens at the loop's next `maybeCompact`.
 */
export const COMPACT_FUNCTION = declaration(compactToolSpec());

/**
 * Answers a {@link RECALL_FUNCTION} call (a tool use of the appended response) from the
 * session's archive, or on a stateless path from the `archive` (and `sessionId`) given to
 * `compactGeminiContents`: the original as the tool result, or an error result saying why.
 *
 * @example
 * if (call.name === RECALL_FUNCTION.name) results.push(await answerRecall(session, call));
 * @throws {ValidationError} for a source that is neither (naming `recallTool options`).
 */
export async function answerRecall(
  source: RecallToolSession | RecallToolOptions,
  call: { id: string; input: unknown },
): Promise<ToolResultInput> {
  return answerRecallCall(recallSourceOf(source), call.id, call.input);
}

/**
 * Answers a {@link COMPACT_FUNCTION} call: `session.requestCompaction` with the call's `notes`
 * as the summarizer's instructions, and a tool result saying the compaction happens before the
 * next request (an error result, scheduling nothing, for notes that are not a string or too long).
 *
 * @example
 * if (call.name === COMPACT_FUNCTION.name) results.push(answerCompact(session, call));
 */
export function answerCompact(
  session: CompactToolSession,
  call: { id: string; input: unknown },
): ToolResultInput {
  return answerCompactCall(session, call.id, call.input);
}
