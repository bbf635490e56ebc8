import type { CompactionResult } from "../core/compactor.js";
import type { CompactionError } from "../core/errors.js";
import type { JsonObject, Message } from "../core/message.js";
import type {
  ConfiguredWindowProblem,
  OverheadAboveTrigger,
  RefusedAboveWindow,
  UsageAboveWindow,
} from "../models/model-limits.js";
import type { CompactionBoundary } from "./hooks.js";

/** What started a compaction: `maybeCompact` (auto) or `forceCompact` (manual). */
export type CompactionTrigger = "auto" | "manual";

/** A summarizing (async) compactor is about to run; a sync one reports only its end or skip. */
export interface CompactionStartEvent {
  type: "compaction_start";
  trigger: CompactionTrigger;
  /** The compactor's strategy: `threshold`, `llm`, `hybrid`, or `custom`. */
  strategy: string;
  /** The session's context measure when the compactor started. */
  contextUsed: number;
  contextLimit: number;
  /**
   * This run's id (a uuid v7), which the compactor passes on to its summarizer's requests
   * (`LlmRequest.runId`): a tracer parents their spans under this run's, whatever other
   * session shares the summarizer. The event that ends the run (`compaction_end`,
   * `compaction_failed` or `compaction_skipped`) carries it too. Set by the session.
   */
  runId?: string;
}

/** A compactor changed the conversation, and its result was applied. */
export interface CompactionEndEvent {
  type: "compaction_end";
  trigger: CompactionTrigger;
  /** The compactor's strategy: `threshold`, `llm`, `hybrid`, or `custom`. */
  strategy: string;
  result: CompactionResult;
  /** Local token estimate of the messages before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** The session's context measure before and after. */
  contextUsedBefore: number;
  contextUsedAfter: number;
  /** The boundary record of this change. */
  boundary: CompactionBoundary;
  /** The messages in the conversation before and after (messages appended meanwhile count in both). */
  messagesBefore?: number;
  messagesAfter?: number;
  /** The `runId` of this run's `compaction_start` event, when it had one (a summarizing compactor's). */
  runId?: string;
}

/** A compactor failed; the conversation is as it was before that compactor ran. */
export interface CompactionFailedEvent {
  type: "compaction_failed";
  trigger: CompactionTrigger;
  /** The compactor's strategy: `threshold`, `llm`, `hybrid`, or `custom`. */
  strategy: string;
  error: CompactionError;
  /** Failures in a row of automatic summaries, this one included. */
  consecutiveFailures: number;
  /** The `runId` of this run's `compaction_start` event, when it had one (a summarizing compactor's). */
  runId?: string;
}

/** A compactor was due but changed nothing. */
export interface CompactionSkippedEvent {
  type: "compaction_skipped";
  trigger: CompactionTrigger;
  /** The compactor's strategy: `threshold`, `llm`, `hybrid`, or `custom`. */
  strategy: string;
  /**
   * `circuit_open`: automatic summaries are paused after repeated failures; `vetoed`: the
   * `beforeCompact` hook vetoed it; `nothing_to_compact`: it ran and changed nothing;
   * `conflict`: a stored session's other worker compacted first, and this result was discarded
   * (the report's `discarded`).
   */
  reason: "circuit_open" | "vetoed" | "nothing_to_compact" | "conflict";
  /** Why, in words (for `nothing_to_compact`, what the compactor said). */
  detail: string;
  /** The `runId` of this run's `compaction_start` event, when it had one (a summarizing compactor's). */
  runId?: string;
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
  /** Thinking blocks removed after the cut, as a compaction removes them (see `CompactionBoundary`). */
  thinkingBlocksDropped: number;
}

/**
 * The context is still above the window after everything the session could do: the next
 * request would be refused. Configure a summarizer (`llmCompactor` or `HybridCompactor`), or
 * turn `trimOnOverflow` on.
 */
export interface ContextOverflowEvent {
  type: "context_overflow";
  trigger: CompactionTrigger;
  contextUsed: number;
  contextLimit: number;
  /** Why, in words. */
  detail: string;
}

/**
 * A block too large for any request was cut to its head and tail as it was appended
 * (`maxBlockShare` of the window). The original text is handed over here so the host can
 * keep it.
 */
export interface ContentClampedEvent {
  type: "content_clamped";
  /** The message appended, and the block's index in it. */
  messageId: string;
  blockIndex: number;
  /** The tool use the block answers, for a tool result. */
  toolUseId?: string;
  /** The text as it was, and the characters kept of it. */
  original: string;
  keptChars: number;
  /** The recall handle the archive keeps the original under (named in the cut's marker); none with `archive: false`. */
  handle?: string;
}

/**
 * A user message went on while tool calls were unanswered: the library closed them with error
 * results saying so (`INTERRUPTED_NOTICE`), so no request pairs a call with nothing.
 */
export interface ToolCallsInterruptedEvent {
  type: "tool_calls_interrupted";
  /** The calls closed, by tool use id. */
  toolUseIds: string[];
  /** The user message holding their results. */
  messageId: string;
}

/**
 * The API changed the request before the model read it (a response's
 * `input_transformations`, e.g. thinking blocks dropped with `prefix_mismatch_behavior:
 * "drop_block"`), as `appendAnthropicResponse` reports it.
 */
export interface InputTransformationsEvent {
  type: "input_transformations";
  /** The entries as the API wrote them. */
  transformations: JsonObject[];
}

/** The API cleared context server-side (`context_management.applied_edits`), as reported. */
export interface ContextEditsAppliedEvent {
  type: "context_edits_applied";
  /** The edits as the API wrote them (`cleared_tool_uses`, `cleared_input_tokens`, …). */
  edits: JsonObject[];
  /** The input tokens they cleared, summed. */
  clearedInputTokens: number;
}

/** Why the prompt cache missed on the last request (`diagnostics.cache_miss_reason`), as reported. */
export interface CacheDiagnosisEvent {
  type: "cache_diagnosis";
  /** The reason as the API wrote it; `null` when the cache did not miss. */
  reason: JsonObject | null;
}

/** The events a provider adapter reads in a response and hands the session (`REPORT_EVENTS`). */
export type ReportedEvent =
  | InputTransformationsEvent
  | ContextEditsAppliedEvent
  | CacheDiagnosisEvent;

/**
 * The configured window looks wrong: unknown for the session's `model`, above the model's own,
 * or below what the provider reported accepting (each kind reported once per session); or a
 * refusal for length named a smaller window, which the session now uses (each time it does).
 * A warning with the same message goes to the logger.
 */
export interface ContextWindowWarningEvent {
  type: "context_window_warning";
  problem: UsageAboveWindow | ConfiguredWindowProblem | RefusedAboveWindow | OverheadAboveTrigger;
}

/** Everything a session reports to observers. */
export type CompactionEvent =
  | CompactionStartEvent
  | CompactionEndEvent
  | CompactionFailedEvent
  | CompactionSkippedEvent
  | ContextTrimmedEvent
  | ContextOverflowEvent
  | ContentClampedEvent
  | ToolCallsInterruptedEvent
  | ContextWindowWarningEvent
  | InputTransformationsEvent
  | ContextEditsAppliedEvent
  | CacheDiagnosisEvent;

/** A listener of compaction events. */
export type CompactionEventListener<E extends CompactionEvent = CompactionEvent> = (
  event: E,
) => void;

/** Where the session reports what it cannot report through events (a listener that threw). */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
}
