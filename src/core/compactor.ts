import { assertCompactArguments, assertMessages } from "./entry-validation.js";
import type { Message, ToolResultBlock } from "./message.js";
import type { CompactionUsage } from "./usage.js";

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
  /** The oldest messages removed to reach the target (`dropOldest`); absent means 0. */
  messagesRemoved?: number;
  /** Local token estimate of the conversation before. */
  tokensBefore?: number;
  /** Local token estimate of the conversation after. */
  tokensAfter?: number;
  /**
   * Facts of the folded part a summary missed and the summary message now lists
   * (`kind: text`, e.g. `path: src/app.ts`); absent when none were missing.
   */
  factsAdded?: string[];
  /**
   * What the compaction's own model calls used, as the provider billed them (a server-side
   * compaction's `usage.iterations`); absent when not known.
   */
  usage?: CompactionUsage;
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
    (result.toolInputsCleared ?? 0) === 0 &&
    (result.messagesRemoved ?? 0) === 0
  );
}

/** A compacted conversation and what changed. */
export interface CompactionOutput {
  conversation: Message[];
  result: CompactionResult;
  /** Why nothing changed, when nothing did; the session reports it in `compaction_skipped`. */
  skipReason?: string;
}

/**
 * What a compactor may know besides the conversation: the session passes it so a compactor
 * can aim at a target utilization. Every field is optional; without them a compactor
 * compacts everything its retention rules allow.
 */
export interface CompactionContext {
  /**
   * The model's context window in tokens (from a session: in the local estimate's tokens,
   * divided by `tokenRatio` once it learned one). @default unknown (no target applies)
   */
  contextLimit?: number;
  /**
   * The context this conversation takes in a request (messages plus system prompt and tools;
   * from a session: divided by `tokenRatio` as `contextLimit` is).
   * @default the local estimate of the messages
   */
  contextUsed?: number;
  /**
   * `manual` (`forceCompact`) compacts everything eligible, ignoring targets and minimum gains.
   * @default "auto"
   */
  trigger?: "auto" | "manual";
  /**
   * What the provider counts for each token the local estimate (`estimateTokens`) counts of the
   * messages, as a session learned it from the usages reported (dense code, JSON, CJK text take
   * more than 4 characters a token). The session then gives `contextLimit` and `contextUsed`
   * divided by it, in the estimate's tokens that compactors count messages by (the same shares
   * of the window); token settings meant in the provider's tokens (`clearAtLeast`, a
   * summarizer's `maxTranscriptTokens`) are divided by it too.
   * @default 1
   */
  tokenRatio?: number;
}

/**
 * Shrinks a conversation. `compact` is pure: it never mutates its input. Its messages are never
 * edited in place once handed over, and a message's id is unique within its conversation only.
 */
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
  /**
   * Where the part of `conversation` this compactor keeps whole starts (its recent turns, its
   * newest tool uses, its newest share of the window): the session's follow-up trim never
   * removes a message from there on unless the next request would not fit the window.
   * @default the session keeps only the latest request
   */
  keeps?(conversation: readonly Message[], context: CompactionContext): number;
  /**
   * The name events, reports and boundaries give its runs: `threshold`, `llm`, `hybrid` and
   * `anthropic` for the built-in compactors. @default "custom"
   */
  readonly strategy?: string;
}

/** Options of one asynchronous compaction. */
export interface CompactAsyncOptions extends CompactionContext {
  /** Cancels the compaction; it then rejects with `CompactionError` code `aborted`. @default none */
  signal?: AbortSignal;
  /** Extra instructions for the summarizer, for this run only. @default none */
  instructions?: string;
  /**
   * The session's id of this run (its `compaction_start` event's `runId`), passed on to the
   * summarizer's requests (`LlmRequest.runId`). @default none
   */
  runId?: string;
  /**
   * The originals of tool results an earlier compaction replaced, by tool use id (the session
   * passes them from its archive), so a summarizer reads what was there, not the placeholder;
   * an id two placeholders share (a provider reusing it) is left out. @default none
   */
  originals?: ReadonlyMap<string, ToolResultBlock>;
}

/** A compactor whose work needs I/O (an LLM call). Rejects with `CompactionError`. */
export interface AsyncCompactor extends Compactor {
  compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options?: CompactAsyncOptions,
  ): Promise<CompactionOutput>;
}

/**
 * How a compactor of ours runs on a conversation its caller already validated (the session,
 * a pipeline of ours): the same work as its public methods, without validating again.
 * `estimate` is the conversation's token estimate when the caller has it at hand; `source`,
 * the conversation as the agent sent it when `conversation` is an earlier stage's edit of it
 * (the same messages in the same order): a summarizer reads it, and asks from the prompt cache.
 */
export type TrustedCompaction = (
  conversation: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  options: CompactAsyncOptions,
  estimate?: number,
  source?: readonly Message[],
) => CompactionOutput | Promise<CompactionOutput>;

/** A compactor's threshold, and the utilization a run brings the context down to, if it has one. */
export interface CompactorLevels {
  readonly threshold: number;
  readonly targetUtilization?: number | undefined;
}

let trustedRunOf: (compactor: Compactor) => TrustedCompaction | undefined;
let targetOf: (compactor: Compactor) => number | undefined;

/**
 * The base of the library's own compactors, the parts they share in one place: `shouldCompact`
 * at the threshold of their {@link CompactorLevels}, their public entry validating the arguments
 * ({@link BuiltInCompactor.checkedRun}), and the run the session calls on data it validated
 * already ({@link runCompactor}), without checking the output again. What a subclass does is
 * its `run`; `runTrusted`, what the session runs, is `run` unless a rule of the session's
 * differs (one the public method need not keep).
 */
export abstract class BuiltInCompactor<
  Output extends CompactionOutput | Promise<CompactionOutput> =
    | CompactionOutput
    | Promise<CompactionOutput>,
> implements Compactor
{
  abstract readonly isAsync: boolean;
  /**
   * The threshold `shouldCompact` judges by; the target, when set, is what a priced session
   * times the compactor by (see `RewriteBudget`; a server-side compaction sets none).
   */
  protected abstract readonly levels: CompactorLevels;

  abstract compact(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    context?: CompactionContext,
  ): CompactionOutput;

  /** The compactor's work, on arguments validated already (see {@link TrustedCompaction}). */
  protected abstract run(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
    estimate?: number,
    source?: readonly Message[],
  ): Output;

  /** What the session runs on data it validated: {@link BuiltInCompactor.run} unless overridden. */
  protected runTrusted(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
    estimate?: number,
    source?: readonly Message[],
  ): Output {
    return this.run(conversation, summaries, options, estimate, source);
  }

  /** The shared threshold rule at this compactor's threshold ({@link exceedsThreshold}). */
  shouldCompact(contextUsed: number, contextLimit: number): boolean {
    return exceedsThreshold(contextUsed, contextLimit, this.levels.threshold);
  }

  /**
   * The public entry's run: the arguments validated first, then {@link BuiltInCompactor.run}.
   * @throws {ValidationError} naming the offending argument and path.
   */
  protected checkedRun(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options?: CompactAsyncOptions,
  ): Output {
    const estimate = assertCompactArguments(conversation, summaries, options);
    return this.run(conversation, summaries, options ?? {}, estimate);
  }

  static {
    trustedRunOf = (compactor) =>
      compactor instanceof BuiltInCompactor
        ? (conversation, summaries, options, estimate, source) =>
            compactor.runTrusted(conversation, summaries, options, estimate, source)
        : undefined;
    targetOf = (compactor) =>
      compactor instanceof BuiltInCompactor ? compactor.levels.targetUtilization : undefined;
  }
}

/** Whether a compactor is one of ours, run without validating its input or output again. */
export function isTrustedCompactor(compactor: Compactor): boolean {
  return compactor instanceof BuiltInCompactor;
}

/**
 * The utilization a compactor of ours brings the context down to once it runs (its
 * `targetUtilization`), so a priced session can weigh a rewrite to it; else `undefined`.
 */
export function compactorTarget(compactor: Compactor): number | undefined {
  return targetOf(compactor);
}

/** Whether the session runs `compactAsync` (else `compact`): what `isAsync` says. */
function runsAsync(compactor: Compactor): compactor is AsyncCompactor {
  return compactor.isAsync === true;
}

/**
 * Whether `value` is a compactor the session can run: `shouldCompact`, and `compactAsync` when
 * `isAsync` is true, `compact` otherwise. Explains what is missing, or returns `undefined`.
 */
export function compactorProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "must be a Compactor object";
  const candidate = value as Partial<AsyncCompactor>;
  if (typeof candidate.shouldCompact !== "function") return "must have a shouldCompact method";
  if (candidate.isAsync === true) {
    return typeof candidate.compactAsync === "function"
      ? undefined
      : "has isAsync: true but no compactAsync method";
  }
  return typeof candidate.compact === "function"
    ? undefined
    : "must have a compact method (or isAsync: true and a compactAsync method)";
}

/**
 * Runs any compactor the same way, sync or async: a built-in one through its trusted path, a
 * custom one through `compactAsync` (when `isAsync`) or `compact`. Always a promise; a sync
 * throw becomes a rejection. `estimate`, the conversation's token estimate when the caller
 * has it at hand, spares a built-in compactor estimating it again; `source` (see
 * {@link TrustedCompaction}) reaches a built-in one only.
 */
export async function runCompactor(
  compactor: Compactor,
  conversation: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  options: CompactAsyncOptions,
  estimate?: number,
  source?: readonly Message[],
): Promise<CompactionOutput> {
  const trusted = trustedRunOf(compactor);
  if (trusted !== undefined) return trusted(conversation, summaries, options, estimate, source);
  if (runsAsync(compactor)) return compactor.compactAsync(conversation, summaries, options);
  const { signal: _signal, instructions: _instructions, runId: _runId, ...context } = options;
  return compactor.compact(conversation, summaries, context);
}

/**
 * Whether a compactor's output differs from its input: the returned conversation is the result,
 * whatever the counters say. Unchanged messages are shared, so identity decides.
 */
export function conversationChanged(
  before: readonly Message[],
  after: readonly Message[],
): boolean {
  if (before.length !== after.length) return true;
  for (let index = 0; index < before.length; index += 1) {
    if (before[index] !== after[index]) return true;
  }
  return false;
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

/**
 * The synchronous `compact` of a compactor that works only in `compactAsync` (a summary needs
 * I/O): validates its input and changes nothing, saying so.
 */
export function onlyAsync(conversation: readonly Message[], name: string): CompactionOutput {
  assertMessages(conversation, "conversation");
  return {
    conversation: [...conversation],
    result: emptyCompactionResult(),
    skipReason: `${name} compacts only in compactAsync`,
  };
}
