import * as z from "zod/mini";
import type { AsyncCompactor, Compactor } from "../core/compactor.js";
import {
  NON_EMPTY_STRING_SCHEMA,
  positiveWholeNumber,
  SHARE_SCHEMA,
} from "../core/option-schemas.js";
import type { CompactionArchive } from "./archive.js";
import { ARCHIVE_OPTION_SCHEMA, booleanOrShare, runnableCompactor } from "./options.js";

/**
 * What a stateless path (one that gets the whole conversation with each request and keeps
 * nothing between them: the AI SDK's `compactModelMessages`, `compactionPrepareStep` and
 * middleware) takes to keep the session's promises: its window, compactor, archive and limits.
 */
export interface StatelessCompactionOptions {
  /** The model's context window in tokens. */
  contextLimit: number;
  /**
   * What compacts: any `Compactor` (run with `compact`) or `AsyncCompactor` (`compactAsync`).
   * @default the session's: what `new AgentSession({ contextLimit })` runs
   */
  compactor?: Compactor | AsyncCompactor;
  /**
   * A summarizer run after `compactor`, judged on what it left, as the session's `llmCompactor`
   * (the default compactor then drops nothing: the summarizer folds the old turns). @default none
   */
  llmCompactor?: AsyncCompactor;
  /** Tokens the request holds besides its messages (system prompt, tools). @default 0 */
  overheadTokens?: number;
  /** Compact summaries of tool results, by tool call id. @default none */
  summaries?: ReadonlyMap<string, string>;
  /**
   * Where what compaction removes or replaces is kept, under the recall handle its placeholder
   * names; a recall tool answers from it. Handles are named after what they hold, so the same
   * compaction made again keeps the same records under the same handles. @default none
   */
  archive?: CompactionArchive | false;
  /**
   * The conversation's id in the archive (its records are kept under it, its handles carry its
   * tag); give the recall tool the same. @default `"stateless"` (one shared id: handles name their
   * content, so conversations may share it; give each its own to keep their records apart)
   */
  sessionId?: string;
  /** Keep the thinking blocks a compaction made stale (see `AgentSessionOptions`). @default false */
  keepStaleThinking?: boolean;
  /** The largest share of the window one text may take; longer ones are cut to head and tail. @default 0.25 */
  maxBlockShare?: number;
  /** The last resort above 95% of the window, as the session's. @default true (`{ targetUtilization: 0.5 }`) */
  trimOnOverflow?: boolean | { targetUtilization?: number };
}

/** The id a stateless path keeps its archive records under when no `sessionId` is given. */
export const STATELESS_SESSION_ID = "stateless";

const TOKENS = z
  .number({ error: "must be a number" })
  .check(
    z.refine((value) => Number.isFinite(value) && value >= 0, "must be a finite number, 0 or more"),
  );

/** The schemas of {@link StatelessCompactionOptions}, for each entry's strict schema. */
export const STATELESS_COMPACTION_SHAPE = {
  contextLimit: positiveWholeNumber("tokens"),
  compactor: z.exactOptional(runnableCompactor<Compactor>()),
  llmCompactor: z.exactOptional(runnableCompactor<AsyncCompactor>()),
  overheadTokens: z.exactOptional(TOKENS),
  summaries: z.exactOptional(
    z.custom<ReadonlyMap<string, string>>(
      (value) => value instanceof Map,
      "must be a Map of tool call id to summary",
    ),
  ),
  archive: z.exactOptional(ARCHIVE_OPTION_SCHEMA),
  sessionId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
  keepStaleThinking: z.exactOptional(z.boolean({ error: "must be a boolean" })),
  maxBlockShare: z.exactOptional(SHARE_SCHEMA),
  trimOnOverflow: z.exactOptional(booleanOrShare("targetUtilization")),
};

/** A context in tokens given by the caller (`contextUsed`): finite, 0 or more. */
export const CONTEXT_TOKENS_SCHEMA = TOKENS;
