import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  NON_EMPTY_STRING_SCHEMA,
  optionsSchema,
  positiveWholeNumber,
} from "../core/option-schemas.js";
import type { RecallToolSession } from "../core/recall-tool-call.js";
import type { CompactionArchive } from "./archive.js";
import { ArchiveKeeper } from "./archive-keeper.js";
import { CONTENT_HANDLES } from "./content-handles.js";
import { ARCHIVE_SCHEMA } from "./options.js";
import { STATELESS_SESSION_ID } from "./stateless-options.js";

/** Where a recall tool reads: the archive a stateless compaction kept records in. */
export interface RecallToolOptions {
  /** The `archive` given to a one-call helper (`compactModelMessages`, …) or a middleware. */
  archive: CompactionArchive;
  /** The `sessionId` given with it. @default the stateless paths' default */
  sessionId?: string;
  /** The model's window, which sizes a page of an answer (an eighth of it). @default 4,000-token pages */
  contextLimit?: number;
}

/** What a recall tool also reads from: anything with a `recall` (an `AgentSession`, a `StoredSession`). */
export type RecallSource = RecallToolSession;

/** Schema of {@link RecallToolOptions}. */
const RecallToolOptionsSchema = optionsSchema({
  archive: ARCHIVE_SCHEMA,
  sessionId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
  contextLimit: z.exactOptional(positiveWholeNumber("tokens")),
});

/**
 * What a recall tool answers from: `source` itself when it has a `recall`, else its archive
 * under its session id (the stateless paths' by default).
 * @throws {ValidationError} naming `recallTool options` when the options are invalid.
 */
export function recallSourceOf(source: RecallToolOptions | RecallSource): RecallSource {
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
