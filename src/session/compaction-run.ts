import { type CompactionOutput, type Compactor, conversationChanged } from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { newId } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import { addUsage, type CompactionUsage } from "../core/usage.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import type { CompactionHooks } from "./compaction-hooks.js";
import { type CompactionRunOutcome, countedNothing } from "./compaction-report.js";
import { computeStep } from "./compute-step.js";
import { type ComputedStep, Landing } from "./landing.js";
import { failedEvent, type RunStep, skippedEvent } from "./run-events.js";
import { type RunKind, runPolicy } from "./run-policy.js";
import type { CompactionRunnerSettings, CompactionRunOptions, RunState } from "./run-settings.js";
import { asCompactionError, strategyOf } from "./strategy.js";
import { trimShare } from "./trim-share.js";
import { reportOverflow, trimOnOverflow } from "./trim-stage.js";

export type { CompactionRunnerSettings, CompactionRunOptions };

type Computed = ComputedStep;

/**
 * The stage loop of every compaction, automatic and manual alike: plan (is each compactor
 * due: its threshold, the circuit breaker; the policy says), compute (the compactor on the
 * conversation as the previous one left it), apply (archive what goes, then land it through
 * the session's commit step). The last resort, trimming, is a stage of its own after them.
 * A compactor's returned conversation is its result: it changed something when it differs.
 */
export class CompactionRunner {
  readonly #settings: CompactionRunnerSettings;
  /** Pauses automatic summaries after repeated failures; a snapshot carries it. */
  readonly breaker: CircuitBreaker;
  readonly #landing: Landing;
  /** What compactions cost, summed from the usage their results report. */
  #usage: CompactionUsage = { inputTokens: 0, outputTokens: 0 };

  constructor(settings: CompactionRunnerSettings) {
    this.#settings = settings;
    this.breaker = new CircuitBreaker(
      settings.maxConsecutiveFailures,
      settings.limits.circuitCooldownMs,
      settings.clock,
    );
    this.#landing = new Landing(settings);
  }

  /** What compactions cost, summed from the usage their results report. */
  get usage(): Readonly<CompactionUsage> {
    return this.#usage;
  }

  /** The session's context measure. */
  get contextUsed(): number {
    return this.#settings.history.meter.contextUsed;
  }

  /** The session's window. */
  get #contextLimit(): number {
    return this.#settings.history.meter.contextLimit;
  }

  /**
   * One compaction: the stage loop on the history as the commit step has it, again after a lost
   * race when the commit step says so (a stored session, `maxAttempts` in all).
   */
  async run(kind: RunKind, options: CompactionRunOptions): Promise<CompactionRunOutcome> {
    const { commit } = this.#settings;
    for (let attempt = 1; ; attempt += 1) {
      if (commit.refresh !== undefined) await commit.refresh();
      const outcome = await this.#attempt(kind, options);
      if (commit.retry === undefined) return outcome;
      try {
        if (!(await commit.retry(outcome, kind, attempt))) return outcome;
      } catch (error) {
        // A manual run that lost every race rejects: reported as any failure of it is.
        const step = outcome.steps.at(-1) ?? { strategy: "custom" };
        const trigger = kind === "auto" ? "auto" : "manual";
        if (CompactionError.isInstance(error))
          this.#settings.events.emit(failedEvent(trigger, step, error, this.breaker.failures));
        throw error;
      }
    }
  }

  async #attempt(kind: RunKind, options: CompactionRunOptions): Promise<CompactionRunOutcome> {
    const { history, commit, pricedTiming } = this.#settings;
    const from = history.messages;
    if (kind === "auto") pricedTiming?.budget.observe(this.contextUsed, history.generation);
    const policy = runPolicy(kind, this.#contextLimit, pricedTiming);
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
      if (state.policy.resetsBreaker) this.breaker.succeeded();
      // A failed summary (or compactor, or archive) leaves the conversation as it found it, and
      // the request must still fit: the last resort runs above its line all the same, as when
      // the breaker skips the summary. Only a lost race stops it; after the caller's abort it
      // lands only what needs no wait for the archive (see `trimOnOverflow`). An `aborted` that
      // no signal asked for (a client's own, a landing's) is a failure like any other.
      if (state.outcome.discarded !== "conflict") await this.#lastResort(state);
      reportOverflow(this.#landing, trigger, state.outcome, this.#settings.trimTarget);
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
      const gate = policy.gate(compactor, this.#planContext(state), this.breaker.open);
      if (gate === "not_due") continue;
      if (gate === "circuit_open") {
        this.#skip(
          state,
          { strategy },
          "circuit_open",
          "automatic summaries paused after repeated failures",
        );
        continue;
      }
      if (!(await this.#begin(state, strategy))) return;
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
   * The last resort (see `trimShare`). A compactor that failed (not the archive) aims at
   * nothing: it trims by its own line. It runs under the session's lease when it can take it,
   * and without it when another worker holds it (a summary that may take a minute): the
   * request must fit now, and the head's compare-and-swap keeps the history right.
   */
  async #lastResort(state: RunState): Promise<void> {
    const { history, events, clock } = this.#settings;
    const contextUsedBefore = this.contextUsed;
    const share = trimShare(
      history,
      this.#settings,
      {
        ran: state.ran,
        landed: state.landed === true,
        failed: state.outcome.error !== undefined && state.archiveFailed !== true,
      },
      events,
    );
    if (share === undefined) return;
    await this.#begin(state);
    await trimOnOverflow(this.#landing, state.policy.trigger, state.outcome, {
      ...share,
      contextUsedBefore,
      clock,
      signal: state.options.signal,
    });
  }

  /** What a compactor's threshold is judged on: the working conversation, with the measure's overhead and ratio. */
  #planContext(state: RunState): number {
    const { meter } = this.#settings.history;
    if (state.working === state.from) return meter.contextUsed;
    return meter.contextOf(estimateTokens(state.working));
  }

  /**
   * The commit step's `begin`, once per run; `false` when another worker holds the lease, or
   * the store failed (`store_error`: `strategy`'s failure; the last resort's is in the report).
   */
  async #begin(state: RunState, strategy?: string): Promise<boolean> {
    if (state.began === undefined) {
      state.began = this.#settings.commit.begin(state.policy.waitsForLease, state.options.signal);
    }
    try {
      if (await state.began) return true;
    } catch (error) {
      if (!CompactionError.isInstance(error)) throw error;
      if (strategy === undefined) {
        if (error.code !== "store_error") throw error;
        state.outcome.error ??= error;
        return false;
      }
      // A manual run's `busy` or `aborted` is reported as any failure of it is, then thrown.
      this.#failed(state, error, { strategy }, false);
      if (error.code !== "store_error") throw error;
      return false;
    }
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
          contextLimit: this.#contextLimit,
          messages: this.#settings.history.view,
        },
        options.instructions,
        options.signal,
      );
    } catch (error) {
      // The hook outlived its time or the caller's signal: no summary ran, none is counted.
      this.#failed(state, asCompactionError(error, compactor), { strategy }, false);
      return "stop";
    }
    if (decision.veto === true) {
      this.#skip(state, { strategy }, "vetoed", "the beforeCompact hook vetoed it");
      return "unchanged";
    }
    // A summary's run has an id its requests carry (see `LlmRequest.runId`).
    const runId = summarizes ? newId() : undefined;
    if (runId !== undefined) this.#startSummary(state, strategy, runId);
    const step: RunStep = { strategy, runId };
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
      this.#failed(state, asCompactionError(error, compactor), step, summarizes);
      return "stop";
    }
    return this.#computed(state, output, input, step);
  }

  /** A summary starts: its event, and background mode stops waiting for it. */
  #startSummary(state: RunState, strategy: string, runId: string): void {
    const { trigger } = state.policy;
    this.#settings.events.emit({
      type: "compaction_start",
      trigger,
      strategy,
      contextUsed: this.contextUsed,
      contextLimit: this.#contextLimit,
      runId,
    });
    if (state.policy.detaches) state.options.background?.detach();
  }

  /**
   * A failure: reported, thrown or kept; `counts` (a summary's) counts it for the breaker,
   * unless the caller's signal fired (an abort it asked for is no outage).
   */
  #failed(state: RunState, failure: CompactionError, step: RunStep, counts: boolean): void {
    const { policy } = state;
    if (policy.countsFailures && counts && state.options.signal?.aborted !== true)
      this.breaker.failed();
    this.#settings.events.emit(failedEvent(policy.trigger, step, failure, this.breaker.failures));
    if (policy.rethrows) throw failure;
    state.outcome.error = failure;
  }

  /** Takes a compactor's output: nothing changed (a skip, no counts) or the next working conversation. */
  #computed(
    state: RunState,
    output: CompactionOutput,
    input: readonly Message[],
    step: RunStep,
  ): Computed | "unchanged" {
    const { strategy, runId } = step;
    const { countsFailures } = state.policy;
    if (output.result.usage !== undefined) {
      this.#usage = addUsage(this.#usage, output.result.usage);
      this.#settings.costs?.addCompaction(output.result.usage);
    }
    if (!conversationChanged(input, output.conversation)) {
      // A summary that would not have shrunk the conversation is no failure, and no success.
      state.outcome.steps.push({ strategy, result: countedNothing(output.result, input) });
      this.#skip(state, step, "nothing_to_compact", output.skipReason ?? "nothing to compact");
      return "unchanged";
    }
    // A summary's run has an id.
    if (countsFailures && runId !== undefined) this.breaker.succeeded();
    state.outcome.steps.push({ strategy, result: output.result });
    state.working = output.conversation;
    return {
      strategy,
      result: output.result,
      tokensBefore: output.result.tokensBefore ?? estimateTokens(input),
      tokensAfter: output.result.tokensAfter ?? estimateTokens(output.conversation),
      runId,
    };
  }

  /** Lands what is pending; `false` when another worker's change won (the run stops). */
  async #landPending(state: RunState, summarized: boolean): Promise<boolean> {
    if (summarized) await state.options.background?.beforeApply();
    const pending = state.pending;
    state.pending = [];
    const { trigger } = state.policy;
    const replaced = await this.#landing.land(trigger, {
      from: state.from,
      generation: state.generation,
      conversation: state.working,
      computed: pending,
      outcome: state.outcome,
      signal: state.options.signal,
    });
    if (replaced.status === "archive_failed" || replaced.status === "moved") {
      // Nothing landed: the conversation is as it was, and the run stops (the last resort runs
      // after an archive's failure). The run reports it: `maybeCompact` never rejects for it,
      // `forceCompact` does.
      state.working = state.from;
      if (replaced.status === "archive_failed") state.archiveFailed = true;
      const { failure } = replaced;
      const last = pending.at(-1) ?? { strategy: "custom" };
      // Each earlier step's run ends here too (a tracer's open span): one failure, counted once.
      for (const step of pending.slice(0, -1))
        if (step.runId !== undefined)
          this.#settings.events.emit(failedEvent(trigger, step, failure, this.breaker.failures));
      // The history moving under it is no summary's failure: the breaker does not count it.
      const counts = summarized && replaced.status === "archive_failed";
      this.#failed(state, failure, last, counts);
      return false;
    }
    if (replaced.status === "lost") {
      state.outcome.discarded = "conflict";
      // Each step's run ends here, discarded: its observers (a tracer's open span) are told.
      const detail = "another worker compacted the session first: this result was discarded";
      for (const step of pending)
        this.#settings.events.emit(skippedEvent(trigger, step, "conflict", detail));
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

  /** A compactor that did not change the conversation: its event, and the run's record of why. */
  #skip(
    state: RunState,
    step: RunStep,
    reason: "circuit_open" | "vetoed" | "nothing_to_compact",
    detail: string,
  ): void {
    state.outcome.skipped.push({ strategy: step.strategy, reason, detail });
    this.#settings.events.emit(skippedEvent(state.policy.trigger, step, reason, detail));
  }
}
