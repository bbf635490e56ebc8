import * as z from "zod/mini";
import { type CompactionResult, emptyCompactionResult } from "../core/compactor.js";
import type { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ABORT_SIGNAL_SCHEMA, STRING_SCHEMA } from "../core/option-schemas.js";
import { addUsage, type CompactionUsage } from "../core/usage.js";
import type { CompactionBoundary } from "./hooks.js";

/** What one compactor did in a run. */
export interface CompactionStepResult {
  /** The compactor's strategy name: `threshold`, `llm`, `hybrid`, or `custom`. */
  strategy: string;
  result: CompactionResult;
}

/** What a run of the session's compactors did. */
export interface CompactionRunOutcome {
  /** The context measure when the run started. */
  contextUsedBefore: number;
  /** Whether the conversation changed. */
  compacted: boolean;
  /** Each compactor that ran, in order. */
  steps: CompactionStepResult[];
  /** A boundary record for each compactor that changed the conversation, in order. */
  boundaries: CompactionBoundary[];
  /** Each compactor that changed nothing, and why (its `compaction_skipped` event). */
  skipped: { strategy: string; reason: string; detail: string }[];
  /** The failure of an automatic run; the conversation is as the failed compactor found it. */
  error?: CompactionError;
  /** The messages `trimOnOverflow` removed, when it had to. */
  trimmed?: Message[];
  /** Whether the context is still above the window (a `context_overflow` event said why). */
  overWindow: boolean;
  /**
   * Why what was computed did not land (stored sessions): `conflict`, another worker changed
   * the history first; `lease_held`, another worker is compacting, so the compactors did not run.
   */
  discarded?: "conflict" | "lease_held";
}

/** What `maybeCompact` did. */
export interface MaybeCompactReport {
  /** Whether the conversation changed. */
  compacted: boolean;
  /** The context measure before and after. */
  contextUsedBefore: number;
  contextUsedAfter: number;
  /** Each compactor that ran, in order, with its result. */
  results: CompactionStepResult[];
  /** The failure, when a compactor failed; the conversation is as the failed compactor found it. */
  error?: CompactionError;
  /**
   * A boundary record for each compactor that changed the conversation, in order; frozen, as
   * each boundary is (callers joining one run share its report).
   */
  boundaries: readonly CompactionBoundary[];
  /** The messages `trimOnOverflow` removed, when it had to. */
  trimmed?: Message[];
  /** Whether the context is still above the window (a `context_overflow` event said why). */
  overWindow: boolean;
  /**
   * Why what was computed did not land (stored sessions): `conflict`, another worker changed
   * the head first in every attempt, so nothing of it applied; `lease_held`, another worker
   * holds the lease and is compacting, so the compactors did not run (the last resort may
   * still have trimmed); the other's result reaches this worker on its next read.
   */
  discarded?: "conflict" | "lease_held";
  /**
   * Background mode: a summary is being written while the agent goes on; it replaces exactly
   * the messages it covers when it arrives (a `compaction_end` event says so).
   */
  inBackground?: true;
}

/** Options of `maybeCompact`. */
export interface MaybeCompactOptions {
  /**
   * Cancels a summary in flight, or the call's wait for a run another call started (reported as
   * an `aborted` failure, never a rejection by `maybeCompact`). After it the last resort trims
   * only what needs no wait for the archive: the next call trims the rest. @default none
   */
  signal?: AbortSignal;
}

/** Options of `forceCompact`. */
export interface ForceCompactOptions extends MaybeCompactOptions {
  /** Extra instructions for the summarizer, for this compaction only. @default none */
  instructions?: string;
}

/** What `forceCompact` did: the combined result and a boundary record per compactor that changed something. */
export interface ForceCompactResult extends CompactionResult {
  /** Frozen, as each boundary is. */
  boundaries: readonly CompactionBoundary[];
  /**
   * Why each compactor that changed nothing did not (its `compaction_skipped` event's strategy,
   * reason and detail): a `/compact` that freed nothing says why, e.g. the newest tool results
   * are protected (`keepRecentToolUses`) or the part to fold is too small to shrink.
   */
  skipped?: { strategy: string; reason: string; detail: string }[];
  /** Whether the context is still above the window (a `context_overflow` event said why). */
  overWindow: boolean;
  /**
   * Background mode: a summary is being written while the agent goes on; it replaces exactly
   * the messages it covers when it arrives (a `compaction_end` event says so).
   */
  inBackground?: true;
}

const signalSchema = z.exactOptional(ABORT_SIGNAL_SCHEMA);
/** "must be an object" for what is not one; zod's own message (naming the key) for an unknown key. */
const notAnObject = {
  error: (issue: { code: string }) =>
    issue.code === "invalid_type" ? "must be an object" : undefined,
};
export const MaybeCompactOptionsSchema = z.strictObject({ signal: signalSchema }, notAnObject);
export const ForceCompactOptionsSchema = z.strictObject(
  { signal: signalSchema, instructions: z.exactOptional(STRING_SCHEMA) },
  notAnObject,
);

const NO_BOUNDARIES: readonly CompactionBoundary[] = Object.freeze([]);

/** The report of an automatic run that compacted nothing (none was due, or one goes on elsewhere). */
export function idleReport(contextUsed: number, contextLimit: number): MaybeCompactReport {
  return {
    compacted: false,
    contextUsedBefore: contextUsed,
    contextUsedAfter: contextUsed,
    results: [],
    boundaries: NO_BOUNDARIES,
    overWindow: contextUsed > contextLimit,
  };
}

/** The report of an automatic run. */
export function maybeCompactReport(
  outcome: CompactionRunOutcome,
  contextUsedAfter: number,
): MaybeCompactReport {
  return {
    compacted: outcome.compacted,
    contextUsedBefore: outcome.contextUsedBefore,
    contextUsedAfter,
    results: outcome.steps,
    boundaries: Object.freeze([...outcome.boundaries]),
    overWindow: outcome.overWindow,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.trimmed === undefined ? {} : { trimmed: outcome.trimmed }),
    ...(outcome.discarded === undefined ? {} : { discarded: outcome.discarded }),
  };
}

/** The result of a manual run: the steps' results summed, tokens before and after. */
export function forceCompactResult(
  outcome: CompactionRunOutcome,
  tokensBefore: number,
  tokensAfter: number,
): ForceCompactResult {
  return {
    ...sumResults(outcome.steps.map((step) => step.result)),
    tokensBefore,
    tokensAfter,
    boundaries: Object.freeze([...outcome.boundaries]),
    overWindow: outcome.overWindow,
    ...(outcome.skipped.length === 0 ? {} : { skipped: outcome.skipped }),
  };
}

function sumResults(results: readonly CompactionResult[]): CompactionResult {
  const total: CompactionResult = {
    toolResultsSummarized: 0,
    toolResultsRedacted: 0,
    turnsCompacted: 0,
  };
  let toolInputsCleared = 0;
  let messagesRemoved = 0;
  let usage: CompactionUsage | undefined;
  for (const result of results) {
    total.toolResultsSummarized += result.toolResultsSummarized;
    total.toolResultsRedacted += result.toolResultsRedacted;
    total.turnsCompacted += result.turnsCompacted;
    toolInputsCleared += result.toolInputsCleared ?? 0;
    messagesRemoved += result.messagesRemoved ?? 0;
    // What the summaries cost, as `compactionUsage` counts it (a summary that changed nothing too).
    if (result.usage !== undefined) usage = addUsage(usage, result.usage);
  }
  return {
    ...total,
    ...(toolInputsCleared === 0 ? {} : { toolInputsCleared }),
    ...(messagesRemoved === 0 ? {} : { messagesRemoved }),
    ...(usage === undefined ? {} : { usage }),
  };
}

/** The result of a compactor that changed nothing: no counts, its usage (a summary may have been paid for). */
export function countedNothing(
  result: CompactionResult,
  conversation: readonly Message[],
): CompactionResult {
  const tokens = estimateTokens(conversation);
  return {
    ...emptyCompactionResult(),
    tokensBefore: tokens,
    tokensAfter: tokens,
    ...(result.usage === undefined ? {} : { usage: result.usage }),
  };
}
