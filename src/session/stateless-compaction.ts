import { runStages } from "../compactors/stage-loop.js";
import { throwIfAborted } from "../core/abort.js";
import type { ArchiveRecord } from "../core/archive-record.js";
import {
  type CompactionOutput,
  type CompactionResult,
  type Compactor,
  conversationChanged,
  emptyCompactionResult,
} from "../core/compactor.js";
import { isSystemMessage } from "../core/conversation-structure.js";
import { CompactionError } from "../core/errors.js";
import type { LateResults } from "../core/late-results.js";
import type { Message } from "../core/message.js";
import { systemClock } from "../core/message-factory.js";
import { estimateEdited, estimateTokens } from "../core/message-memo.js";
import { awaitsCallsWithThinking } from "../core/preserved-thinking.js";
import { ArchiveKeeper } from "./archive-keeper.js";
import { runStep } from "./compute-step.js";
import { CONTENT_HANDLES } from "./content-handles.js";
import { isUntrustedUsage } from "./context-meter.js";
import { dropHandles } from "./handle-renames.js";
import {
  keepRecords,
  type LandedConversation,
  type LandingRules,
  landedConversation,
  NO_REPAIR,
} from "./landed-conversation.js";
import { DEFAULT_SESSION_OPTIONS, sessionCompactors, trimTarget } from "./options.js";
import { type IntakeFacts, type StatelessIntake, statelessIntake } from "./stateless-intake.js";
import { STATELESS_SESSION_ID, type StatelessCompactionOptions } from "./stateless-options.js";
import { lastResortTrim, trimShareOf } from "./trim-share.js";

/** What {@link StatelessCompaction.compact} did. */
export interface StatelessOutcome {
  /** The conversation to send: the input itself when nothing changed. */
  conversation: readonly Message[];
  /** Whether any compactor or the last resort changed it. */
  changed: boolean;
  /** What the compactors reported (summed when more than one changed it), the trim included. */
  result: CompactionResult;
  /** Thinking blocks removed because an edit before them made them stale. */
  thinkingBlocksDropped: number;
  /**
   * A compactor's failure (a summarizer's outage, a timeout): what the compactors before it
   * did stands, and the last resort ran on its own line, as in a session's run. Or the
   * archive's: nothing the compactors did stands, and the last resort ran without the archive.
   */
  error?: CompactionError;
}

/**
 * The session's promises on a stateless path: its default compactors (`sessionCompactors`,
 * one source), its intake clamps, its landing ({@link landedConversation}: pins, stale
 * thinking repaired, what is removed archived first), its distrust of a usage far below the
 * estimate and its last resort. Options are checked by the entry that takes them.
 */
export class StatelessCompaction {
  readonly contextLimit: number;
  readonly overheadTokens: number;
  readonly keeper: ArchiveKeeper | undefined;
  readonly #compactors: readonly Compactor[];
  readonly #summaries: ReadonlyMap<string, string>;
  readonly #rules: LandingRules;
  readonly #maxBlockTokens: number;
  readonly #trimTarget: number | undefined;

  constructor(options: StatelessCompactionOptions) {
    const { contextLimit, compactor, llmCompactor, archive } = options;
    this.contextLimit = contextLimit;
    this.overheadTokens = options.overheadTokens ?? 0;
    // The session's own choice of compactors, from the same options: one source of defaults.
    this.#compactors = sessionCompactors(
      {
        ...(compactor === undefined ? {} : { compactor }),
        ...(llmCompactor === undefined ? {} : { llmCompactor }),
      },
      contextLimit,
    );
    this.#summaries = options.summaries ?? new Map();
    this.keeper =
      archive === undefined || archive === false
        ? undefined
        : new ArchiveKeeper(archive, options.sessionId ?? STATELESS_SESSION_ID, {
            contentHandles: CONTENT_HANDLES,
          });
    this.#rules = {
      pinned: new Set(),
      keepStaleThinking: options.keepStaleThinking ?? DEFAULT_SESSION_OPTIONS.keepStaleThinking,
      clock: systemClock,
      archive: this.keeper,
    };
    this.#maxBlockTokens = Math.floor(
      (options.maxBlockShare ?? DEFAULT_SESSION_OPTIONS.maxBlockShare) * contextLimit,
    );
    this.#trimTarget = trimTarget(options.trimOnOverflow);
  }

  /**
   * New messages as the session's intake takes them (`statelessIntake`): calls the conversation
   * went on without closed, each text too long for the window clamped. `before`: the messages
   * before them (a history known already).
   */
  intake(
    messages: readonly Message[],
    before?: readonly Message[],
    lateResults?: LateResults,
  ): StatelessIntake {
    const settings = {
      maxBlockTokens: this.#maxBlockTokens,
      clampNamer: this.keeper?.clampNamer,
      keepStaleThinking: this.#rules.keepStaleThinking,
      clock: this.#rules.clock,
      lateResults,
    };
    return statelessIntake(messages, settings, before);
  }

  /**
   * The context to judge on: `reported` (a usage, or the caller's `contextUsed`) unless it is
   * far below `estimate`, the local estimate of the messages (a gateway's or a mock's 0, cache
   * reads left out: see `isUntrustedUsage`); then, as without one, the estimate and the overhead
   * (`overheadTokens`, the option's by default).
   */
  contextUsed(
    reported: number | undefined,
    estimate: number,
    overheadTokens = this.overheadTokens,
  ): number {
    if (reported !== undefined && !isUntrustedUsage(reported, estimate)) return reported;
    return estimate + overheadTokens;
  }

  /**
   * Compacts `conversation` as a session's run would: each compactor that is due, on what the
   * one before left, landed by the session's rules; then the last resort when the context is
   * still above 95% of the window (or above the target of the compactor that ran and is still
   * due). What is removed or replaced is kept in the archive, with `records` (the intake's),
   * before this resolves.
   * @throws {CompactionError} a compactor's failure (`compactor_error` for one that threw
   * something else or returned what the session refuses), or the archive's.
   */
  async compact(
    conversation: readonly Message[],
    contextUsed: number,
    options: {
      signal?: AbortSignal | undefined;
      estimate?: number | undefined;
      records?: ArchiveRecord[];
      /** What the intake saw, when `conversation` is its messages alone. */
      facts?: IntakeFacts | undefined;
    },
  ): Promise<StatelessOutcome> {
    // Aborted before it starts: nothing runs, as an abort during it rejects (a compactor that
    // never reads the signal would otherwise compact anyway).
    throwIfAborted(options.signal);
    const estimate = options.estimate ?? estimateTokens(conversation);
    const overhead = Math.max(0, contextUsed - estimate);
    const { facts } = options;
    // Calls that wait for their results after thinking signed over everything before them (an
    // approval given, the tool not run yet): any change before them, the last resort's too,
    // makes the request with their results refused. Left whole: the step that sends the results
    // (`compactionPrepareStep`, the middleware) compacts then, closing the exchange.
    if (
      facts?.thinking !== false &&
      !this.#rules.keepStaleThinking &&
      (options.records ?? []).length === 0 &&
      awaitsCallsWithThinking(conversation)
    )
      return {
        conversation,
        changed: false,
        result: emptyCompactionResult(),
        thinkingBlocksDropped: 0,
      };
    const { working, tokens, results, ran, error } = await this.#runCompactors(
      conversation,
      contextUsed,
      estimate,
      options.signal,
    );
    // The system messages that open the conversation (its instructions) are pinned: no
    // compaction removes or edits them. Later ones (reminders) go with their turns, as the
    // platforms' own compaction summarizes them away.
    const pinned = facts?.leadingSystemIds ?? leadingSystemIds(conversation);
    const rules: LandingRules = {
      ...this.#rules,
      pinned,
      ...(facts?.thinking === false ? { thinkingFree: true } : {}),
    };
    const landed =
      working === conversation
        ? { conversation, repair: NO_REPAIR, records: [] }
        : landedConversation(rules, conversation, conversation, working);
    // The landing changes what the compactors left only where it repairs: measured from theirs.
    const context =
      working === conversation
        ? contextUsed
        : tokens === undefined
          ? overhead + estimateEdited(conversation, estimate, landed.conversation)
          : overhead + estimateEdited(working, tokens, landed.conversation);
    // As the session's run: the last resort goes by the last compactor that ran, once one changed.
    const run = { ran, landed: working !== conversation, failed: error !== undefined };
    const trimmed = this.#trim(rules, landed.conversation, context, overhead, run);
    const records = [
      ...(options.records ?? []),
      ...landed.records,
      ...(trimmed?.landed.records ?? []),
    ];
    let final: readonly Message[] = trimmed?.landed.conversation ?? landed.conversation;
    if (this.keeper !== undefined && records.length > 0) {
      const keeper = this.keeper;
      const milliseconds = DEFAULT_SESSION_OPTIONS.archiveTimeoutMs;
      const kept = final;
      try {
        final = await keepRecords(() => keeper.keep(records, kept), milliseconds, options.signal);
      } catch (failure) {
        if (!CompactionError.isInstance(failure) || options.signal?.aborted === true) throw failure;
        const clamps = options.records ?? [];
        return this.#withoutArchive(rules, conversation, clamps, contextUsed, overhead, failure);
      }
    }
    if (trimmed !== undefined)
      results.push({ ...emptyCompactionResult(), messagesRemoved: trimmed.removed });
    const changed = conversationChanged(conversation, final);
    return {
      conversation: changed ? final : conversation,
      changed,
      result: sumResults(results),
      thinkingBlocksDropped:
        landed.repair.thinkingBlocksDropped + (trimmed?.landed.repair.thinkingBlocksDropped ?? 0),
      ...(error === undefined ? {} : { error }),
    };
  }

  /**
   * The archive failed to keep what the compaction removes: as in a session's run, nothing the
   * compactors did applies (nothing is removed without its record), and the last resort still
   * fits the request in the window, without the archive (what it removes is in `result`). The
   * intake's clamps stand, their markers naming no handle the archive never got.
   */
  #withoutArchive(
    rules: LandingRules,
    conversation: readonly Message[],
    clamps: readonly ArchiveRecord[],
    contextUsed: number,
    overhead: number,
    error: CompactionError,
  ): StatelessOutcome {
    const run = { ran: undefined, landed: false, failed: true };
    const unarchived = { ...rules, archive: undefined };
    const taken = clamps.length === 0 ? conversation : dropHandles(conversation, clamps);
    const trimmed = this.#trim(unarchived, taken, contextUsed, overhead, run);
    const final = trimmed?.landed.conversation ?? taken;
    const result = emptyCompactionResult();
    if (trimmed !== undefined) result.messagesRemoved = trimmed.removed;
    return {
      conversation: final,
      changed: final !== conversation,
      result,
      thinkingBlocksDropped: trimmed?.landed.repair.thinkingBlocksDropped ?? 0,
      error,
    };
  }

  /**
   * Each compactor that is due, on what the one before left (judged on the overhead and its
   * estimate), as a session's run computes them ({@link runStages}); `ran`, the last one that
   * was due. A compactor's failure ends the run as the session's does: what the ones before it
   * did stands, the failure is `error` (the caller's abort rejects).
   */
  async #runCompactors(
    conversation: readonly Message[],
    contextUsed: number,
    estimate: number,
    signal: AbortSignal | undefined,
  ): Promise<{
    working: readonly Message[];
    /** The estimate of `working`, when the stages knew it (see `trustedTokensAfter`). */
    tokens?: number;
    results: CompactionResult[];
    ran?: Compactor;
    error?: CompactionError;
  }> {
    const timeoutMs = DEFAULT_SESSION_OPTIONS.compactorTimeoutMs;
    let error: CompactionError | undefined;
    const stages = await runStages(
      this.#compactors,
      conversation,
      this.#summaries,
      {
        contextLimit: this.contextLimit,
        contextUsed,
        estimate,
        ...(signal === undefined ? {} : { signal }),
      },
      {
        run: async (compactor, working, summaries, options, unchanged) => {
          if (error !== undefined) return unchangedOutput(working);
          try {
            return await runStep(compactor, working, summaries, options, timeoutMs, unchanged);
          } catch (failure) {
            // The caller's abort rejects; an `aborted` the compactor gave (not asked) is a failure.
            if (!CompactionError.isInstance(failure) || signal?.aborted === true) throw failure;
            error = failure;
            return unchangedOutput(working);
          }
        },
      },
    );
    return {
      working: stages.conversation,
      ...(stages.tokens === undefined ? {} : { tokens: stages.tokens }),
      results: stages.changed.map((step) => step.output.result),
      ...(stages.ran === undefined ? {} : { ran: stages.ran }),
      ...(error === undefined ? {} : { error }),
    };
  }

  /**
   * The last resort, by the session's rule ({@link trimShareOf}): above 95% of the window, the
   * oldest messages go down to `trimOnOverflow`'s target; when a compactor's change landed and
   * the last one that ran is the last of all and still due, down to its target, what it keeps
   * left alone unless the next request would not fit the window.
   */
  #trim(
    rules: LandingRules,
    conversation: readonly Message[],
    context: number,
    overhead: number,
    run: { ran: Compactor | undefined; landed: boolean; failed: boolean },
  ): { landed: LandedConversation; removed: number } | undefined {
    const { contextLimit } = this;
    const measure = { contextUsed: context, contextLimit, overhead, messages: conversation };
    const settings = { compactors: this.#compactors, trimTarget: this.#trimTarget };
    const share = trimShareOf(measure, settings, run);
    if (share === undefined) return undefined;
    const output = lastResortTrim(conversation, share, { contextLimit, overhead });
    if (output === undefined) return undefined;
    const again = landedConversation(rules, conversation, conversation, output.conversation);
    return { landed: again, removed: output.removed.length };
  }
}

/** A stage's output that changes nothing (a stage after a failure, or the failed one). */
function unchangedOutput(conversation: readonly Message[]): CompactionOutput {
  return { conversation: conversation.slice(), result: emptyCompactionResult() };
}

/** The ids of the system messages that open `conversation`. */
function leadingSystemIds(conversation: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of conversation) {
    if (!isSystemMessage(message)) break;
    ids.add(message.id);
  }
  return ids;
}

/** One result for a run of several compactors: their counts summed. */
function sumResults(results: readonly CompactionResult[]): CompactionResult {
  if (results.length === 1) return results[0]!;
  const total = emptyCompactionResult();
  for (const result of results) {
    total.toolResultsSummarized += result.toolResultsSummarized;
    total.toolResultsRedacted += result.toolResultsRedacted;
    total.turnsCompacted += result.turnsCompacted;
    if (result.toolInputsCleared !== undefined)
      total.toolInputsCleared = (total.toolInputsCleared ?? 0) + result.toolInputsCleared;
    if (result.messagesRemoved !== undefined)
      total.messagesRemoved = (total.messagesRemoved ?? 0) + result.messagesRemoved;
  }
  return total;
}
