import { contextAfter } from "../compactors/stage-loop.js";
import {
  type CompactionOutput,
  type Compactor,
  compactorTarget,
  conversationChanged,
} from "../core/compactor.js";
import type { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { newId } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import { addUsage, type CompactionUsage } from "../core/usage.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import type { CompactionHooks } from "./compaction-hooks.js";
import { type CompactionRunOutcome, countedNothing } from "./compaction-report.js";
import { computeStep } from "./compute-step.js";
import type { CompactionTrigger } from "./events.js";
import { archiveFailure, type ComputedStep, type Landing, landCompaction } from "./landing.js";
import { type RunKind, type RunPolicy, runPolicy } from "./run-policy.js";
import type { CompactionRunnerSettings, CompactionRunOptions } from "./run-settings.js";
import type { SessionSnapshot } from "./snapshot.js";
import { asCompactionError, strategyOf } from "./strategy.js";
import { trimOnOverflow } from "./trim-stage.js";

export type { CompactionRunnerSettings, CompactionRunOptions };

type Computed = ComputedStep;

/** One run's state: the conversation the pending results were computed from, and them. */
interface RunState {
  readonly policy: RunPolicy;
  readonly options: CompactionRunOptions;
  readonly outcome: CompactionRunOutcome;
  from: readonly Message[];
  generation: number;
  working: readonly Message[];
  pending: Computed[];
  /** The commit step's `begin`, once called: whether this worker may compact. */
  began: Promise<boolean> | undefined;
  /** The last compactor this run ran (it was due), whether or not it changed anything. */
  ran?: Compactor;
  /** Whether a compactor's change landed in this run. */
  landed?: boolean;
}

/**
 * The stage loop of every compaction, automatic and manual alike: plan (is each compactor
 * due: its threshold, the circuit breaker; the policy says), compute (the compactor on the
 * conversation as the previous one left it), apply (archive what goes, then land it through
 * the session's commit step). The last resort, trimming, is a stage of its own after them.
 * A compactor's returned conversation is its result: it changed something when it differs.
 */
export class CompactionRunner {
  readonly #settings: CompactionRunnerSettings;
  readonly #breaker: CircuitBreaker;
  /** What compactions cost, summed from the usage their results report. */
  #usage: CompactionUsage = { inputTokens: 0, outputTokens: 0 };

  constructor(settings: CompactionRunnerSettings) {
    this.#settings = settings;
    this.#breaker = new CircuitBreaker(
      settings.maxConsecutiveFailures,
      settings.limits.circuitCooldownMs,
      settings.clock,
    );
  }

  /** What compactions cost, summed from the usage their results report. */
  get usage(): Readonly<CompactionUsage> {
    return this.#usage;
  }

  /** Automatic summaries failed in a row (the circuit breaker's count; see {@link CircuitBreaker}). */
  get consecutiveFailures(): number {
    return this.#breaker.failures;
  }

  /** Whether the circuit breaker pauses automatic summaries now. */
  get circuitOpen(): boolean {
    return this.#breaker.state === "open";
  }

  /** The circuit breaker as a snapshot carries it: the count, and when it opened (ISO 8601). */
  get circuit(): Pick<SessionSnapshot, "consecutiveFailures" | "circuitOpenedAt"> {
    const openedAt = this.#breaker.openedAt;
    return {
      consecutiveFailures: this.#breaker.failures,
      ...(openedAt === undefined ? {} : { circuitOpenedAt: new Date(openedAt).toISOString() }),
    };
  }

  /** Takes a snapshot's circuit breaker (see {@link CircuitBreaker}). */
  restoreCircuit(snapshot: { consecutiveFailures: number; circuitOpenedAt?: Date }): void {
    this.#breaker.restore(snapshot.consecutiveFailures, snapshot.circuitOpenedAt?.getTime());
  }

  /** The session's context measure. */
  get contextUsed(): number {
    return this.#settings.history.meter.contextUsed;
  }

  async run(kind: RunKind, options: CompactionRunOptions): Promise<CompactionRunOutcome> {
    const { history, commit, pricedTiming } = this.#settings;
    const from = history.messages;
    if (kind === "auto") pricedTiming?.budget.observe(this.contextUsed, history.generation);
    const policy = runPolicy(kind, this.#settings.contextLimit, pricedTiming);
    const { trigger } = policy;
    const state: RunState = {
      policy,
      options,
      outcome: {
        contextUsedBefore: this.contextUsed,
        compacted: false,
        steps: [],
        boundaries: [],
        skipped: [],
        overWindow: false,
      },
      from,
      generation: history.generation,
      working: from,
      pending: [],
      began: undefined,
    };
    try {
      await this.#stages(state);
      if (state.policy.resetsBreaker) this.#breaker.succeeded();
      // A failed summary (or compactor, or archive) leaves the conversation as it found it, and
      // the request must still fit: the last resort runs above its line all the same, as when
      // the breaker skips the summary. Only the caller's abort, or a lost race, stops it.
      const { error, discarded } = state.outcome;
      if (error?.code !== "aborted" && discarded !== "conflict") {
        const failed = error !== undefined && archiveFailure(error) === undefined;
        await trimOnOverflow(this.#landing(), trigger, state.outcome, {
          begin: () => this.#begin(state),
          signal: options.signal,
          // A compactor that failed aims at nothing: the last resort trims by its own line.
          ...(failed ? {} : this.#stillDue(state)),
        });
      }
      this.#reportOverflow(trigger, state.outcome);
      return state.outcome;
    } finally {
      if (state.began !== undefined) await commit.end();
    }
  }

  /** Each compactor in turn: planned, computed, and landed when the policy says. */
  async #stages(state: RunState): Promise<void> {
    const { policy } = state;
    for (const compactor of this.#settings.compactors) {
      const strategy = strategyOf(compactor);
      const gate = policy.gate(compactor, this.#planContext(state), this.#breaker.state === "open");
      if (gate === "not_due") continue;
      if (gate === "circuit_open") {
        this.#skip(
          state,
          strategy,
          "circuit_open",
          "automatic summaries paused after repeated failures",
        );
        continue;
      }
      if (!(await this.#begin(state))) return;
      state.ran = compactor;
      const computed = await this.#compute(state, compactor, strategy);
      if (computed === "stop") return;
      if (computed === "unchanged") continue;
      state.pending.push(computed);
      if (policy.landsEachStep) {
        if (!(await this.#landPending(state, compactor.isAsync === true))) return;
        state.landed = true;
      }
    }
    if (state.pending.length > 0) await this.#landPending(state, false);
  }

  /**
   * No compaction leaves the context above its trigger: when a change landed in this run, the
   * last compactor ran (a summarizer after masking takes over from its own threshold) and would
   * still be due, the share of the window the last resort trims down to (`below`: its target,
   * else `trimOnOverflow`'s, when the context is above it), and where what that compactor keeps
   * starts (`keepFrom`: the trim leaves it unless the request would not fit the window).
   * Nothing otherwise (a compactor that declined a rewrite not worth its cost is not overruled),
   * with `trimOnOverflow: false`, or when the system prompt and tools alone are above the
   * compactor's trigger (one not due on an empty context): no trim can help then, and the
   * session is warned once.
   */
  #stillDue(state: RunState): { below?: number; keepFrom?: number } {
    const { ran, landed } = state;
    const { contextLimit, trimTarget, compactors, history } = this.#settings;
    if (landed !== true || ran === undefined || trimTarget === undefined) return {};
    if (ran !== compactors.at(-1)) return {};
    if (!ran.shouldCompact(this.contextUsed, contextLimit)) return {};
    const overhead = Math.max(0, this.contextUsed - history.meter.estimate);
    // A compactor due on an empty context (a custom one always due) has no trigger to be above.
    const triggered = !ran.shouldCompact(0, contextLimit);
    if (triggered && ran.shouldCompact(overhead, contextLimit)) {
      this.#settings.warn?.({
        kind: "overhead_above_trigger",
        overheadTokens: overhead,
        contextLimit,
        message: `the system prompt and tools alone take ${overhead} tokens, above the ${strategyOf(ran)} compactor's trigger in a window of ${contextLimit}: compaction cannot bring the context under it`,
      });
      return {};
    }
    const share = compactorTarget(ran) ?? trimTarget;
    if (this.contextUsed <= share * contextLimit) return {};
    const keepFrom = ran.keeps?.(history.messages, { contextLimit, contextUsed: this.contextUsed });
    return { below: share, ...(keepFrom === undefined ? {} : { keepFrom }) };
  }

  /** What a compactor's threshold is judged on: the working conversation, with the measure's overhead. */
  #planContext(state: RunState): number {
    const { meter } = this.#settings.history;
    const first = {
      contextUsed: meter.contextUsed,
      estimate: meter.estimate,
      conversation: state.from,
    };
    return contextAfter(first, state.working);
  }

  /** The commit step's `begin`, once per run; `false` when another worker holds the lease. */
  async #begin(state: RunState): Promise<boolean> {
    if (state.began === undefined) {
      state.began = this.#settings.commit.begin(state.policy.waitsForLease, state.options.signal);
    }
    if (await state.began) return true;
    state.outcome.discarded = "lease_held";
    return false;
  }

  /** Runs one compactor after the `beforeCompact` hook: its output, or why there is none. */
  async #compute(
    state: RunState,
    compactor: Compactor,
    strategy: string,
  ): Promise<Computed | "unchanged" | "stop"> {
    const { policy, options } = state;
    const { trigger } = policy;
    const summarizes = compactor.isAsync === true;
    let decision: Awaited<ReturnType<CompactionHooks["before"]>>;
    try {
      decision = await this.#settings.hooks.before(
        {
          trigger,
          strategy,
          contextUsed: this.contextUsed,
          contextLimit: this.#settings.contextLimit,
          messages: this.#settings.history.view,
        },
        options.instructions,
        options.signal,
      );
    } catch (error) {
      // The hook outlived its time or the caller's signal: no summary ran, none is counted.
      this.#failed(state, asCompactionError(error, compactor), strategy, false);
      return "stop";
    }
    if (decision.veto === true) {
      this.#skip(state, strategy, "vetoed", "the beforeCompact hook vetoed it");
      return "unchanged";
    }
    // A summary's run has an id its requests carry (see `LlmRequest.runId`).
    const runId = summarizes ? newId() : undefined;
    if (runId !== undefined) this.#startSummary(state, strategy, runId);
    // Nothing pending: computed on the conversation as it is now (the hook may have waited).
    if (state.pending.length === 0) this.#rebase(state);
    const input = state.working;
    let output: CompactionOutput;
    try {
      output = await computeStep(this.#settings, compactor, input, trigger, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(decision.instructions === undefined ? {} : { instructions: decision.instructions }),
        ...(runId === undefined ? {} : { runId }),
      });
    } catch (error) {
      this.#failed(state, asCompactionError(error, compactor), strategy, summarizes);
      return "stop";
    }
    return this.#computed(state, output, input, strategy, summarizes);
  }

  /** A summary starts: its event, and background mode stops waiting for it. */
  #startSummary(state: RunState, strategy: string, runId: string): void {
    const { trigger } = state.policy;
    const { contextLimit } = this.#settings;
    this.#settings.emit({
      type: "compaction_start",
      trigger,
      strategy,
      contextUsed: this.contextUsed,
      contextLimit,
      runId,
    });
    if (state.policy.detaches) state.options.detach?.();
  }

  /** A failure: counted by the breaker (not a caller's abort), reported, thrown or kept. */
  #failed(state: RunState, failure: CompactionError, strategy: string, summarizes: boolean): void {
    const { policy } = state;
    if (policy.countsFailures && summarizes && failure.code !== "aborted") this.#breaker.failed();
    this.#settings.emit({
      type: "compaction_failed",
      trigger: policy.trigger,
      strategy,
      error: failure,
      consecutiveFailures: this.consecutiveFailures,
    });
    if (policy.rethrows) throw failure;
    state.outcome.error = failure;
  }

  /** Takes a compactor's output: nothing changed (a skip, no counts) or the next working conversation. */
  #computed(
    state: RunState,
    output: CompactionOutput,
    input: readonly Message[],
    strategy: string,
    summarizes: boolean,
  ): Computed | "unchanged" {
    const { countsFailures } = state.policy;
    if (output.result.usage !== undefined) {
      this.#usage = addUsage(this.#usage, output.result.usage);
      this.#settings.onUsage?.(output.result.usage);
    }
    if (!conversationChanged(input, output.conversation)) {
      // A summary that would not have shrunk the conversation is no failure, and no success.
      state.outcome.steps.push({ strategy, result: countedNothing(output.result, input) });
      this.#skip(state, strategy, "nothing_to_compact", output.skipReason ?? "nothing to compact");
      return "unchanged";
    }
    if (countsFailures && summarizes) this.#breaker.succeeded();
    state.outcome.steps.push({ strategy, result: output.result });
    state.working = output.conversation;
    return {
      strategy,
      result: output.result,
      tokensBefore: output.result.tokensBefore ?? estimateTokens(input),
      tokensAfter: output.result.tokensAfter ?? estimateTokens(output.conversation),
    };
  }

  /** Lands what is pending; `false` when another worker's change won (the run stops). */
  async #landPending(state: RunState, summarized: boolean): Promise<boolean> {
    if (summarized) await state.options.beforeApply?.();
    const pending = state.pending;
    state.pending = [];
    let landed: boolean;
    try {
      landed = await landCompaction(this.#landing(), state.policy.trigger, {
        from: state.from,
        generation: state.generation,
        conversation: state.working,
        computed: pending,
        outcome: state.outcome,
        signal: state.options.signal,
      });
    } catch (error) {
      const failure = archiveFailure(error);
      if (failure === undefined) throw error;
      // Nothing landed: the conversation is as it was, and the run stops (the last resort runs).
      state.working = state.from;
      this.#failed(state, failure, pending.at(-1)?.strategy ?? "custom", summarized);
      return false;
    }
    if (!landed) {
      state.outcome.discarded = "conflict";
      return false;
    }
    this.#rebase(state);
    return true;
  }

  /** The run goes on from the conversation as it is now. */
  #rebase(state: RunState): void {
    const { history } = this.#settings;
    if (state.from.length === history.messages.length && state.generation === history.generation)
      return;
    state.from = history.messages;
    state.generation = history.generation;
    state.working = state.from;
  }

  #landing(): Landing {
    const settings = this.#settings;
    return { ...settings, contextUsed: () => this.contextUsed };
  }

  /** A compactor that did not change the conversation: its event, and the run's record of why. */
  #skip(
    state: RunState,
    strategy: string,
    reason: "circuit_open" | "vetoed" | "nothing_to_compact",
    detail: string,
  ): void {
    state.outcome.skipped.push({ strategy, reason, detail });
    const { trigger } = state.policy;
    this.#settings.emit({ type: "compaction_skipped", trigger, strategy, reason, detail });
  }

  #reportOverflow(trigger: CompactionTrigger, outcome: CompactionRunOutcome): void {
    const { contextLimit, trimTarget } = this.#settings;
    if (this.contextUsed <= contextLimit) return;
    outcome.overWindow = true;
    this.#settings.emit({
      type: "context_overflow",
      trigger,
      contextUsed: this.contextUsed,
      contextLimit,
      detail:
        trimTarget === undefined
          ? "compaction could not bring the context under the window: configure a summarizer (llmCompactor, HybridCompactor) or trimOnOverflow"
          : "even trimming could not bring the context under the window: the newest messages alone exceed it",
    });
  }
}
