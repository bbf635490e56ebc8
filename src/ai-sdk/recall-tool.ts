import { jsonSchema, type Tool, tool } from "ai";
import * as z from "zod/mini";
import type { ArchiveRecord } from "../core/archive-record.js";
import { parseOrThrow } from "../core/errors.js";
import {
  NON_EMPTY_STRING_SCHEMA,
  optionsSchema,
  positiveWholeNumber,
} from "../core/option-schemas.js";
import { RECALL_TOOL_NAME, recallAnswer, recallToolSpec } from "../core/recall-tool-call.js";
import type { CompactionArchive } from "../session/archive.js";
import { ArchiveKeeper } from "../session/archive-keeper.js";
import { CONTENT_HANDLES } from "../session/content-handles.js";
import { ARCHIVE_SCHEMA } from "../session/options.js";
import { STATELESS_SESSION_ID } from "../session/stateless-options.js";

/** The name to give {@link recallTool} in `tools` (`recall_compacted`), as placeholders expect. */
export { RECALL_TOOL_NAME };

/** Where {@link recallTool} reads: the archive a stateless compaction kept records in. */
export interface RecallToolOptions {
  /** The `archive` given to `compactModelMessages`, `compactionPrepareStep` or `compactionMiddleware`. */
  archive: CompactionArchive;
  /** The `sessionId` given with it. @default the stateless paths' default */
  sessionId?: string;
  /** The model's window, which sizes a page of an answer (an eighth of it). @default 4,000-token pages */
  contextLimit?: number;
}

/** What {@link recallTool} also reads from: anything with a `recall` (an `AgentSession`, a `StoredSession`). */
export interface RecallSource {
  recall(handle: string): Promise<ArchiveRecord>;
  /** The window, which sizes a page of an answer. @default 4,000-token pages */
  readonly contextLimit?: number;
}

/** Schema of {@link RecallToolOptions}. */
const RecallToolOptionsSchema = optionsSchema({
  archive: ARCHIVE_SCHEMA,
  sessionId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
  contextLimit: z.exactOptional(positiveWholeNumber("tokens")),
});

function recallerOf(source: RecallToolOptions | RecallSource): RecallSource {
  if (
    typeof source === "object" &&
    source !== null &&
    typeof (source as Partial<RecallSource>).recall === "function"
  )
    return source as RecallSource;
  const { archive, sessionId, contextLimit } = parseOrThrow(
    RecallToolOptionsSchema,
    source,
    "recallTool options",
  );
  const keeper = new ArchiveKeeper(archive, sessionId ?? STATELESS_SESSION_ID, {
    contentHandles: CONTENT_HANDLES,
  });
  return {
    recall: (handle) => keeper.recall(handle),
    ...(contextLimit === undefined ? {} : { contextLimit }),
  };
}

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
  const recaller = recallerOf(source);
  const { description, schema } = recallToolSpec();
  return tool({
    description,
    inputSchema: jsonSchema<{ handle: string; page?: number }>(schema),
    execute: ({ handle, page }) => recallAnswer(recaller, handle, page),
  });
}
