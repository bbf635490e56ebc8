import * as z from "zod/mini";
import { type CompactorType, thresholdFromType } from "../compactors/compactor-type.js";
import type { AsyncCompactor, CompactionResult, Compactor } from "../core/compactor.js";
import type { CompactionError } from "../core/errors.js";
import {
  ABORT_SIGNAL_SCHEMA,
  BOOLEAN_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  positiveWholeNumber,
  SHARE_SCHEMA,
  TOKENS_SCHEMA,
} from "../core/option-schemas.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { CompactionArchive } from "./archive.js";
import { CompactionMemory } from "./compaction-memory.js";
import {
  ARCHIVE_OPTION_SCHEMA,
  booleanOrShare,
  COMPACTOR_OPTION_SCHEMA,
  runnableCompactor,
} from "./options.js";

/**
 * What a stateless path (one that gets the whole conversation with each request and keeps
 * nothing between them: the AI SDK's `compactModelMessages`, `compactionPrepareStep` and
 * middleware) takes to keep the session's promises: its window, compactor, archive and limits.
 */
export interface StatelessCompactionOptions {
  /** The model's context window in tokens. */
  contextLimit: number;
  /**
   * What compacts, as the session's option: any `Compactor` (run with `compact`) or
   * `AsyncCompactor` (`compactAsync`), `{ type: "threshold", config? }`, or `false` for none (the
   * `llmCompactor` alone, or only the last resort).
   * @default the session's: what `new AgentSession({ contextLimit })` runs
   */
  compactor?: Compactor | AsyncCompactor | CompactorType | false;
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

function isStringMap(map: Map<unknown, unknown>): boolean {
  for (const [key, value] of map)
    if (typeof key !== "string" || typeof value !== "string") return false;
  return true;
}

/** The schemas of {@link StatelessCompactionOptions}, for each entry's strict schema. */
export const STATELESS_COMPACTION_SHAPE = {
  contextLimit: positiveWholeNumber("tokens"),
  compactor: z.exactOptional(
    z.pipe(
      COMPACTOR_OPTION_SCHEMA,
      // A type is built where it enters, its config checked once (not at each step).
      z.transform((value) =>
        isPlainObject(value) && "type" in value ? thresholdFromType(value as CompactorType) : value,
      ),
    ),
  ) as unknown as z.ZodMiniOptional<z.ZodMiniType<Compactor | CompactorType | false>>,
  llmCompactor: z.exactOptional(runnableCompactor<AsyncCompactor>()),
  overheadTokens: z.exactOptional(TOKENS_SCHEMA),
  summaries: z.exactOptional(
    z.custom<ReadonlyMap<string, string>>(
      (value) => value instanceof Map && isStringMap(value),
      "must be a Map of tool call id to summary, each a string",
    ),
  ),
  archive: z.exactOptional(ARCHIVE_OPTION_SCHEMA),
  sessionId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
  keepStaleThinking: z.exactOptional(BOOLEAN_SCHEMA),
  maxBlockShare: z.exactOptional(SHARE_SCHEMA),
  trimOnOverflow: z.exactOptional(booleanOrShare("targetUtilization")),
};

/**
 * Options of a one-call stateless helper (`compactModelMessages`, `compactAnthropicMessages`,
 * `compactResponsesInput`, `compactGeminiContents`, `compactChatMessages`): the stateless
 * path's, the context measured and a signal.
 */
export interface CompactMessagesOptions extends StatelessCompactionOptions {
  /**
   * The context the conversation takes, when known (the last response's usage plus what came
   * after): a finite number of tokens, 0 or more. One far below the local estimate of the
   * messages (a gateway's 0) is not trusted, as the session trusts no such usage.
   * @default the local estimate of the messages plus `overheadTokens`
   */
  contextUsed?: number;
  /** Cancels an asynchronous compactor and the archive's writes. @default none */
  signal?: AbortSignal;
  /**
   * Where the helper remembers what it sent, so that messages continuing a conversation it
   * compacted go on from what it sent, append-only (see {@link CompactionMemory}): for a server
   * whose clients send the whole, uncompacted history with each request. Messages are compared
   * by value with copies it keeps (a message changed in place is not the same); the messages a
   * call hands back are what the next goes on from, so change a copy of them (to add
   * `cache_control`, say), not them. @default none (each call compacts the messages it is
   * given; keep what it returns as the conversation)
   */
  memory?: CompactionMemory;
}

/** What a one-call stateless helper returns, in the format it was given. */
export interface CompactedMessages<T> {
  /** The messages to send: the input array itself when nothing changed. */
  messages: T[];
  /** Whether the messages changed (compacted, or a text too long for the window clamped). */
  compacted: boolean;
  /** What the compactor reported. */
  result: CompactionResult;
  /** The context the decision was taken on: the messages' before compaction (and the overhead). */
  contextUsed: number;
  /**
   * A compactor's failure (a summarizer's outage, a timeout) or the archive's, when one failed:
   * the call does not reject for it, and the last resort still fits the messages in the window,
   * as in a session's run (what ran before a failed compactor stands; nothing a compactor did
   * stands when the archive could not keep what it removed).
   */
  error?: CompactionError;
}

/** The strict schema of {@link CompactMessagesOptions}. */
export const COMPACT_MESSAGES_OPTIONS_SCHEMA = z.strictObject({
  ...STATELESS_COMPACTION_SHAPE,
  contextUsed: z.exactOptional(TOKENS_SCHEMA),
  signal: z.exactOptional(ABORT_SIGNAL_SCHEMA),
  memory: z.exactOptional(
    z.custom<CompactionMemory>(
      (value) => value instanceof CompactionMemory,
      "must be a CompactionMemory",
    ),
  ),
}) as unknown as z.ZodMiniType<CompactMessagesOptions>;
