import type { Message } from "./message.js";

/** What a compaction changed. Counts only what this run changed, never what an earlier run did. */
export interface CompactionResult {
  /** Tool results whose content was replaced by their compact summary. */
  toolResultsSummarized: number;
  /** Tool results whose content was replaced by the redaction notice. */
  toolResultsRedacted: number;
  /** Turns folded into a summary. */
  turnsCompacted: number;
  /** Tool inputs replaced by a small note (`clearToolInputs`); absent means 0. */
  toolInputsCleared?: number;
  /** Local token estimate of the conversation before. */
  tokensBefore?: number;
  /** Local token estimate of the conversation after. */
  tokensAfter?: number;
}

/** A compaction result that changed nothing. */
export function emptyCompactionResult(): CompactionResult {
  return { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 };
}

/** Whether a result reports any change. */
export function isCompactionResultEmpty(result: CompactionResult): boolean {
  return (
    result.toolResultsSummarized === 0 &&
    result.toolResultsRedacted === 0 &&
    result.turnsCompacted === 0 &&
    (result.toolInputsCleared ?? 0) === 0
  );
}

/** A compacted conversation and what changed. */
export interface CompactionOutput {
  conversation: Message[];
  result: CompactionResult;
}

/**
 * What a compactor may know besides the conversation: the session passes it so a compactor
 * can aim at a target utilisation. Every field is optional; without them a compactor
 * compacts everything its retention rules allow.
 */
export interface CompactionContext {
  /** The model's context window in tokens. */
  contextLimit?: number;
  /** The context this conversation takes in a request (messages plus system prompt and tools). */
  contextUsed?: number;
  /** `manual` (`forceCompact`) compacts everything eligible, ignoring targets and minimum gains. */
  trigger?: "auto" | "manual";
}

/** Shrinks a conversation. `compact` is pure: it never mutates its input. */
export interface Compactor {
  /** Whether `contextUsed / contextLimit` is strictly above this compactor's threshold. */
  shouldCompact(contextUsed: number, contextLimit: number): boolean;
  /**
   * Returns a compacted copy of `conversation` (unchanged messages may be shared).
   * `summaries` maps tool use ids to compact summaries.
   */
  compact(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    context?: CompactionContext,
  ): CompactionOutput;
  /** Whether the real work happens in `compactAsync`. */
  readonly isAsync: boolean;
}

/** Options of one asynchronous compaction. */
export interface CompactAsyncOptions extends CompactionContext {
  /** Cancels the compaction; it then rejects with `CompactionError` code `aborted`. */
  signal?: AbortSignal;
  /** Extra instructions for the summariser, for this run only. */
  instructions?: string;
}

/** A compactor whose work needs I/O (an LLM call). Rejects with `CompactionError`. */
export interface AsyncCompactor extends Compactor {
  compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options?: CompactAsyncOptions,
  ): Promise<CompactionOutput>;
}

/** Whether a compactor does its work asynchronously. */
export function isAsyncCompactor(compactor: Compactor): compactor is AsyncCompactor {
  return (
    compactor.isAsync && typeof (compactor as Partial<AsyncCompactor>).compactAsync === "function"
  );
}

/** The shared threshold rule: strictly greater, and never for a non-positive limit. */
export function exceedsThreshold(
  contextUsed: number,
  contextLimit: number,
  threshold: number,
): boolean {
  if (!(contextLimit > 0) || !Number.isFinite(contextUsed)) return false;
  return contextUsed / contextLimit > threshold;
}
