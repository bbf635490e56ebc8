import { trimOldest } from "../compactors/overflow-trim.js";
import {
  type CompactionContext,
  type CompactionOutput,
  type CompactionResult,
  type CompactionUsage,
  type Compactor,
  conversationChanged,
  isTrustedCompactor,
  runCompactor,
} from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import { keepThinkingValid, type ThinkingRepair } from "../core/preserved-thinking.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import type { CompactionHooks } from "./compaction-hooks.js";
import { type CompactionRunOutcome, countedNothing } from "./compaction-report.js";
import type { CompactionEvent, CompactionTrigger } from "./events.js";
import type { History } from "./history.js";
import type { CompactionBoundary } from "./hooks.js";
import { restorePinned } from "./pins.js";
import { addUsage, asCompactionError, assertCompactorOutput, strategyOf } from "./strategy.js";

/**
 * The last resort acts above this share of the window: what was appended since the last usage
 * is estimated, and an estimate a few percent low must not let a request over the window.
 */
const TRIM_AT = 0.95;

const NO_REPAIR: ThinkingRepair = Object.freeze({
  firstChange: 0,
  thinkingBlocksDropped: 0,
  thinkingTokensDropped: 0,
  toolExchangeClosed: false,
});

/** Options of one run. */
export interface CompactionRunOptions {
  signal?: AbortSignal;
  instructions?: string;
  /** Called when an automatic run starts a summary (background mode stops waiting there). */
  detach?: () => void;
  /**
   * Awaited before a detached summary is applied: background mode applies it at the next
   * `maybeCompact`, where the conversation ends in a user message, never mid-exchange.
   */
  beforeApply?: () => Promise<void>;
}

/** What the runner needs from its session. */
export interface CompactionRunnerSettings {
  history: History;
  contextLimit: number;
  compactors: readonly Compactor[];
  maxConsecutiveFailures: number;
  trimTarget: number | undefined; // trimOnOverflow's target utilization, undefined when off
  clock: Clock;
  emit: (event: CompactionEvent) => void;
  hooks: CompactionHooks;
  /** Where what compactions remove is kept; `undefined` with `archive: false`. */
  archive: ArchiveKeeper | undefined;
  /** Keep thinking blocks an edit made stale (the app sends `drop_block`). */
  keepStaleThinking: boolean;
}

interface Computed {
  strategy: string;
  result: CompactionResult;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * The one stage loop of automatic and manual compaction. Automatic (`maybeCompact`): each
 * compactor whose `shouldCompact` holds runs on the conversation as the previous one left it,
 * and what it changes is applied at once; a failure stops the run and is reported, not thrown.
 * Manual (`forceCompact`): every compactor runs, the thresholds ignored, and the result is
 * applied only when all succeeded (all or nothing); a failure rejects. A compactor's returned
 * conversation is its result: it changed something when it differs from its input.
 */
export class CompactionRunner {
  readonly #settings: CompactionRunnerSettings;
  /** Automatic summaries failed in a row (the circuit breaker). */
  consecutiveFailures = 0;
  /** What compactions cost, summed from the usage their results report. */
  readonly usage: CompactionUsage = { inputTokens: 0, outputTokens: 0 };

  constructor(settings: CompactionRunnerSettings) {
    this.#settings = settings;
  }

  /** The session's context measure. */
  get contextUsed(): number {
    return this.#settings.history.meter.contextUsed;
  }

  async run(
    trigger: CompactionTrigger,
    options: CompactionRunOptions,
  ): Promise<CompactionRunOutcome> {
    const { history, compactors, contextLimit } = this.#settings;
    const manual = trigger === "manual";
    // A manual run works on one copy throughout; an automatic one copies when a compactor runs.
    const input = manual ? history.snapshot() : [];
    const inputGeneration = history.generation;
    let working = input;
    const pending: Computed[] = [];
    const outcome: CompactionRunOutcome = {
      contextUsedBefore: this.contextUsed,
      compacted: false,
      steps: [],
      boundaries: [],
      overWindow: false,
    };

    for (const compactor of compactors) {
      const strategy = strategyOf(compactor);
      const summarizes = compactor.isAsync === true;
      if (!manual) {
        if (!compactor.shouldCompact(this.contextUsed, contextLimit)) continue;
        if (summarizes && this.consecutiveFailures >= this.#settings.maxConsecutiveFailures) {
          this.#skip(
            trigger,
            strategy,
            "circuit_open",
            "automatic summaries paused after repeated failures",
          );
          continue;
        }
      }
      const decision = await this.#settings.hooks.before(
        {
          trigger,
          strategy,
          contextUsed: this.contextUsed,
          contextLimit,
          messages: history.messages,
        },
        options.instructions,
      );
      if (decision.veto === true) {
        this.#skip(trigger, strategy, "vetoed", "the beforeCompact hook vetoed it");
        continue;
      }
      const from = manual ? working : history.snapshot();
      const generation = manual ? inputGeneration : history.generation;
      if (summarizes) {
        this.#settings.emit({
          type: "compaction_start",
          trigger,
          strategy,
          contextUsed: this.contextUsed,
          contextLimit,
        });
        if (!manual) options.detach?.();
      }
      let output: CompactionOutput;
      try {
        output = await this.#compact(compactor, from, trigger, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(decision.instructions === undefined ? {} : { instructions: decision.instructions }),
        });
      } catch (error) {
        const failure = asCompactionError(error, compactor);
        // A caller's abort says nothing about the summarizer: it does not trip the breaker.
        if (!manual && summarizes && failure.code !== "aborted") this.consecutiveFailures += 1;
        this.#settings.emit({
          type: "compaction_failed",
          trigger,
          strategy,
          error: failure,
          consecutiveFailures: this.consecutiveFailures,
        });
        if (manual) throw failure;
        outcome.error = failure;
        break;
      }
      addUsage(this.usage, output.result.usage);
      if (!conversationChanged(from, output.conversation)) {
        // Nothing changed, so nothing counts, whatever the counters say; a summary that would
        // not have shrunk the conversation is no failure, and no success: the breaker stays.
        outcome.steps.push({ strategy, result: countedNothing(output.result, from) });
        this.#skip(
          trigger,
          strategy,
          "nothing_to_compact",
          output.skipReason ?? "nothing to compact",
        );
        continue;
      }
      if (!manual && summarizes) this.consecutiveFailures = 0;
      const computed: Computed = {
        strategy,
        result: output.result,
        tokensBefore: output.result.tokensBefore ?? estimateTokens(from),
        tokensAfter: output.result.tokensAfter ?? estimateTokens(output.conversation),
      };
      outcome.steps.push({ strategy, result: output.result });
      if (manual) {
        working = output.conversation;
        pending.push(computed);
        continue;
      }
      if (summarizes) await options.beforeApply?.();
      const contextUsedBefore = this.contextUsed;
      const repair = await this.#apply(from, generation, output.conversation);
      this.#ended(trigger, computed, repair, contextUsedBefore, outcome);
    }

    if (manual) {
      if (pending.length > 0) {
        const contextUsedBefore = this.contextUsed;
        const repair = await this.#apply(input, inputGeneration, working);
        pending.forEach((computed, index) => {
          // The repair happened once, after the last of them.
          const last = index === pending.length - 1;
          this.#ended(trigger, computed, last ? repair : NO_REPAIR, contextUsedBefore, outcome);
        });
      }
      this.consecutiveFailures = 0;
    }
    // After a failure the conversation stays as it was (the report carries the failure).
    const trimmed = outcome.error === undefined ? await this.#trimOnOverflow(trigger) : undefined;
    if (trimmed !== undefined) {
      outcome.trimmed = trimmed;
      outcome.compacted = true;
    }
    if (this.contextUsed > contextLimit) {
      outcome.overWindow = true;
      this.#settings.emit({
        type: "context_overflow",
        trigger,
        contextUsed: this.contextUsed,
        contextLimit,
        detail:
          this.#settings.trimTarget === undefined
            ? "compaction could not bring the context under the window: configure a summarizer (llmCompactor, HybridCompactor) or trimOnOverflow"
            : "even trimming could not bring the context under the window: the newest messages alone exceed it",
      });
    }
    return outcome;
  }

  async #compact(
    compactor: Compactor,
    conversation: readonly Message[],
    trigger: CompactionTrigger,
    options: CompactionRunOptions,
  ): Promise<CompactionOutput> {
    const { history, contextLimit } = this.#settings;
    // What the measure counts beyond the messages (system prompt, tools) applies to any version of them.
    const overhead = Math.max(0, history.meter.contextUsed - history.meter.estimate);
    const context: CompactionContext = {
      contextLimit,
      contextUsed: overhead + estimateTokens(conversation),
      trigger,
    };
    // A summarizer reads the originals of what earlier compactions replaced.
    const keeper = this.#settings.archive;
    const originals =
      keeper !== undefined && compactor.isAsync === true
        ? await keeper.originals(conversation)
        : undefined;
    const output = await runCompactor(compactor, conversation, new Map(history.summaries), {
      ...options,
      ...context,
      ...(originals === undefined || originals.size === 0 ? {} : { originals }),
    });
    // What a custom compactor returns enters the session: validated here, once.
    if (!isTrustedCompactor(compactor)) assertCompactorOutput(output);
    return output;
  }

  /**
   * Applies the compaction of the prefix `from` into `compacted`, keeping what was appended
   * meanwhile: pinned messages stay as they were, the thinking the change made stale goes (see
   * {@link keepThinkingValid}), and everything removed or replaced is archived first (the
   * placeholders then name their recall handles).
   */
  async #apply(
    from: readonly Message[],
    generation: number,
    compacted: readonly Message[],
  ): Promise<ThinkingRepair> {
    const { history, archive } = this.#settings;
    const kept = restorePinned(from, compacted, history.pinned);
    const rewrite = (before: readonly Message[], after: readonly Message[]) =>
      this.#settings.keepStaleThinking
        ? { conversation: [...after], repair: NO_REPAIR }
        : keepThinkingValid(before, after, this.#settings.clock);
    let before = history.messages;
    let { conversation, repair } = rewrite(before, [...kept, ...before.slice(from.length)]);
    if (archive !== undefined) {
      const prepared = archive.prepare(before, conversation);
      await archive.store(prepared.records);
      conversation = prepared.conversation;
      // Appended while the archive wrote: they follow the change, so their thinking goes too.
      if (history.messages.length !== before.length) {
        const appended = history.messages.slice(before.length);
        before = history.messages;
        ({ conversation } = rewrite(before, [...conversation, ...appended]));
      }
    }
    if (generation !== history.generation) {
      throw new CompactionError("aborted", "the conversation was replaced while compacting");
    }
    history.replace(conversation);
    return repair;
  }

  #ended(
    trigger: CompactionTrigger,
    computed: Computed,
    repair: ThinkingRepair,
    contextUsedBefore: number,
    outcome: CompactionRunOutcome,
  ): void {
    const { result, strategy, tokensBefore } = computed;
    const tokensAfter = computed.tokensAfter - repair.thinkingTokensDropped;
    const boundary: CompactionBoundary = {
      trigger,
      strategy,
      tokensBefore,
      tokensAfter,
      turnsCompacted: result.turnsCompacted,
      toolResultsCompacted: result.toolResultsSummarized + result.toolResultsRedacted,
      toolInputsCleared: result.toolInputsCleared ?? 0,
      thinkingBlocksDropped: repair.thinkingBlocksDropped,
      thinkingTokensDropped: repair.thinkingTokensDropped,
      toolExchangeClosed: repair.toolExchangeClosed,
    };
    outcome.compacted = true;
    outcome.boundaries.push(boundary);
    this.#settings.emit({
      type: "compaction_end",
      trigger,
      strategy,
      result,
      tokensBefore,
      tokensAfter,
      contextUsedBefore,
      contextUsedAfter: this.contextUsed,
      boundary,
    });
  }

  #skip(
    trigger: CompactionTrigger,
    strategy: string,
    reason: "circuit_open" | "vetoed" | "nothing_to_compact",
    detail: string,
  ): void {
    this.#settings.emit({ type: "compaction_skipped", trigger, strategy, reason, detail });
  }

  /** Removes the oldest messages when the context is still above the window. */
  async #trimOnOverflow(trigger: CompactionTrigger): Promise<Message[] | undefined> {
    const { history, contextLimit, trimTarget, clock } = this.#settings;
    if (trimTarget === undefined || this.contextUsed <= TRIM_AT * contextLimit) return undefined;
    const contextUsedBefore = this.contextUsed;
    // What the measure counts beyond the messages (system prompt, tools) stays.
    const overhead = Math.max(0, contextUsedBefore - history.meter.estimate);
    const budget = Math.floor(trimTarget * contextLimit) - overhead;
    const output = trimOldest(history.messages, budget, { clock });
    if (output === undefined) return undefined;
    const repair = await this.#apply(history.messages, history.generation, output.conversation);
    this.#settings.emit({
      type: "context_trimmed",
      trigger,
      removed: output.removed,
      contextUsedBefore,
      contextUsedAfter: this.contextUsed,
      thinkingBlocksDropped: repair.thinkingBlocksDropped,
    });
    return output.removed;
  }
}
