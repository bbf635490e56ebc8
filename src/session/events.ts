import type { CompactionResult } from "../core/compactor.js";
import type { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { CompactionBoundary } from "./hooks.js";

/** What started a compaction: `maybeCompact` (auto) or `forceCompact` (manual). */
export type CompactionTrigger = "auto" | "manual";

/** Which of the session's compactors ran: `compactor` or `llmCompactor`. */
export type CompactionStage = "compactor" | "llmCompactor";

/** A compaction stage is about to run. */
export interface CompactionStartEvent {
  type: "compaction_start";
  trigger: CompactionTrigger;
  stage: CompactionStage;
  /** The session's context measure when the stage started. */
  contextUsed: number;
  contextLimit: number;
}

/** A compaction stage finished and its result was applied. */
export interface CompactionEndEvent {
  type: "compaction_end";
  trigger: CompactionTrigger;
  stage: CompactionStage;
  result: CompactionResult;
  /** Local token estimate of the messages before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** The session's context measure before and after. */
  contextUsedBefore: number;
  contextUsedAfter: number;
  /** The boundary record, when the stage changed the conversation. */
  boundary?: CompactionBoundary;
}

/** A compaction stage failed; the conversation is as it was before that stage. */
export interface CompactionFailedEvent {
  type: "compaction_failed";
  trigger: CompactionTrigger;
  stage: CompactionStage;
  error: CompactionError;
  /** Failures in a row of automatic summaries, this one included. */
  consecutiveFailures: number;
}

/** A compaction stage was due but did not run. */
export interface CompactionSkippedEvent {
  type: "compaction_skipped";
  trigger: CompactionTrigger;
  stage: CompactionStage;
  /**
   * `circuit_open`: automatic summaries are paused after repeated failures; `vetoed`: the
   * `beforeCompact` hook vetoed it.
   */
  reason: "circuit_open" | "vetoed";
}

/**
 * The context was still above the window after every compactor, and the oldest messages were
 * removed (`trimOnOverflow`). They are handed over here so the host can keep them.
 */
export interface ContextTrimmedEvent {
  type: "context_trimmed";
  trigger: CompactionTrigger;
  /** The removed messages, in order. */
  removed: Message[];
  contextUsedBefore: number;
  contextUsedAfter: number;
}

/** Everything a session reports to observers. */
export type CompactionEvent =
  | CompactionStartEvent
  | CompactionEndEvent
  | CompactionFailedEvent
  | CompactionSkippedEvent
  | ContextTrimmedEvent;

/** A listener of compaction events. */
export type CompactionEventListener<E extends CompactionEvent = CompactionEvent> = (
  event: E,
) => void;

/** Where the session reports what it cannot report through events (a listener that threw). */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
}
