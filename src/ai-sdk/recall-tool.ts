import { jsonSchema, type Tool, tool } from "ai";
import { RECALL_TOOL_NAME, recallAnswer, recallToolSpec } from "../core/recall-tool-call.js";
import {
  type RecallSource,
  type RecallToolOptions,
  recallSourceOf,
} from "../session/recall-source.js";

export type { RecallSource, RecallToolOptions };
/** The name to give {@link recallTool} in `tools` (`recall_compacted`), as placeholders expect. */
export { RECALL_TOOL_NAME };

/**
 * The recall tool for the AI SDK: lets the model fetch back what compaction removed, from the
 * archive a stateless compaction kept it in (or a session's). Add it to `tools` under
 * {@link RECALL_TOOL_NAME}; placeholders and summaries name their handles (`[recall r7-3f2a]`).
 * A handle it does not know is an error the model reads (the AI SDK sends it as the result).
 *
 * @example
 * const archive = new MemoryArchive();
 * const result = await generateText({
 *   model, messages, stopWhen: stepCountIs(50),
 *   tools: { ...tools, [RECALL_TOOL_NAME]: recallTool({ archive }) },
 *   prepareStep: compactionPrepareStep({ contextLimit: 200_000, archive }),
 * });
 * @throws {ValidationError} when the options are invalid (at once).
 */
export function recallTool(
  source: RecallToolOptions | RecallSource,
): Tool<{ handle: string; page?: number }, string> {
  const recaller = recallSourceOf(source);
  const { description, schema } = recallToolSpec();
  return tool({
    description,
    inputSchema: jsonSchema<{ handle: string; page?: number }>(schema),
    execute: ({ handle, page }) => recallAnswer(recaller, handle, page),
  });
}
