import * as z from "zod/mini";
import { abortedError, linkAbort } from "../core/abort.js";
import { CompactionError, parseOrThrow } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { STRING_SCHEMA } from "../core/option-schemas.js";
import { type BackgroundGate, backgroundReport } from "./background.js";
import type { CompactionHooks } from "./compaction-hooks.js";
import {
  type CompactionRunOutcome,
  ForceCompactOptionsSchema,
  type ForceCompactResult,
  forceCompactResult,
  idleReport,
  MaybeCompactOptionsSchema,
  type MaybeCompactReport,
  maybeCompactReport,
} from "./compaction-report.js";
import type { CompactionRunner, CompactionRunOptions } from "./compaction-run.js";
import type { History } from "./history.js";
import type { RunKind } from "./run-policy.js";
import type { SerialQueue } from "./serial-queue.js";

/** What `requestCompaction` takes (and a snapshot's `compactionRequested`). */
export const REQUEST_COMPACTION_SCHEMA = z.strictObject(
  { instructions: z.exactOptional(STRING_SCHEMA) },
  { error: "must be an object" },
);

/**
 * Whether a requested compaction was answered: it ran to the end. One that failed, found the
 * breaker open, or did not land (another worker's lease or change) stays requested.
 */
function answered(outcome: CompactionRunOutcome): boolean {
  return (
    outcome.error === undefined &&
    outcome.discarded === undefined &&
    !outcome.skipped.some((skip) => skip.reason === "circuit_open")
  );
}

/** What the calls need of their session: its parts, no callbacks. */
export interface CompactionCallsSettings {
  /** The history; its meter holds the session's window. */
  history: History;
  /** Compactions, one at a time. */
  queue: SerialQueue;
  hooks: CompactionHooks;
  /** Background mode, or `undefined` when it is off. */
  background: BackgroundGate | undefined;
  /** The stage loop (a stored session's commit step reads and retries around each run). */
  runner: CompactionRunner;
}

/** The automatic run a call joins while it is queued or running (see {@link CompactionCalls}). */
interface JoinedRun {
  report: Promise<MaybeCompactReport> | undefined;
}

/**
 * A session's compaction calls: `maybeCompact` (a call while an automatic run is queued or
 * running joins it, background mode, a requested compaction), `forceCompact` (after what is
 * queued), each one run of the stage loop; options checked and calls from a `beforeCompact`
 * hook refused where they enter. Joining ends once a run has settled, before what follows it
 * (the `afterCompact` hooks), so a hook may start the next one.
 */
export class CompactionCalls {
  readonly #settings: CompactionCallsSettings;
  /** The automatic run a call would join, if any. */
  #joined: JoinedRun | undefined;
  /** A compaction the model (or the app) asked for, run at the next `maybeCompact`. */
  #requested: { instructions?: string } | undefined;

  constructor(settings: CompactionCallsSettings) {
    this.#settings = settings;
  }

  /** `maybeCompact`: options checked, a call while one runs joins it, background mode honoured. */
  maybeCompact(options: unknown): Promise<MaybeCompactReport> {
    let parsed: CompactionRunOptions;
    try {
      parsed = this.#check(MaybeCompactOptionsSchema, options, "maybeCompact");
    } catch (error) {
      return Promise.reject(error);
    }
    const { history, background, runner } = this.#settings;
    if (this.#callsWait())
      return Promise.resolve(idleReport(history.meter.contextUsed, history.meter.contextLimit));
    const pending = this.#joined?.report;
    // While the breaker pauses summaries, a requested one waits and the run is automatic.
    if (this.#requested !== undefined && pending === undefined && !runner.breaker.open)
      return this.#runRequested(parsed);
    if (background !== undefined) return this.#inBackground(background, parsed, pending);
    return pending === undefined ? this.#runAuto(parsed) : this.#joinWithin(pending, parsed);
  }

  /**
   * A run another call started, waited for until this call's signal fires: then this call
   * reports the abort at once, and the run goes on for the call that started it.
   */
  #joinWithin(
    pending: Promise<MaybeCompactReport>,
    { signal }: CompactionRunOptions,
  ): Promise<MaybeCompactReport> {
    if (signal === undefined) return pending;
    const link = linkAbort(signal);
    void pending.then(link.release, link.release);
    const aborted = link.aborted.catch(() => abortedReport(this.#settings.history, signal));
    return Promise.race([pending, aborted]);
  }

  /**
   * Asks for a compaction at the next `maybeCompact`, whatever the thresholds (the model's
   * `compact` tool, or the app at a natural boundary); `instructions` go to the summarizer.
   * @throws {ValidationError} for bad options.
   */
  requestCompaction(options: { instructions?: string } = {}): void {
    const parsed = parseOrThrow(REQUEST_COMPACTION_SCHEMA, options, "requestCompaction options");
    this.#requested =
      parsed.instructions === undefined ? {} : { instructions: parsed.instructions };
  }

  /** Whether a compaction was asked for and has not run yet. */
  get requested(): boolean {
    return this.#requested !== undefined;
  }

  /** The compaction asked for and not run yet, with its instructions (a copy), for a snapshot. */
  get request(): { instructions?: string } | undefined {
    return this.#requested === undefined ? undefined : { ...this.#requested };
  }

  /** `forceCompact`: all or nothing, after the compactions queued before it. */
  async forceCompact(options: unknown): Promise<ForceCompactResult> {
    const parsed = this.#check(ForceCompactOptionsSchema, options, "forceCompact");
    if (this.#callsWait()) {
      throw new CompactionError(
        "busy",
        "the last assistant message's tool calls wait for their results: compact after addToolResults, before the next request (a compaction now would make that message's thinking stale, and the request answering it would fail)",
      );
    }
    const { history, queue, hooks, runner } = this.#settings;
    if (this.#joined !== undefined) this.#settings.background?.release();
    let before: readonly Message[] = [];
    const outcome = await queue.enqueue(() => {
      before = history.messages;
      return runner.run("manual", parsed);
    }, parsed.signal);
    this.#requested = undefined;
    await hooks.after(outcome.boundaries);
    return forceCompactResult(outcome, estimateTokens(before), estimateTokens(history.messages));
  }

  /**
   * The compaction asked for: every compactor runs whatever its threshold, reported as
   * `maybeCompact` reports (a failure in the report, never a rejection). Its summary goes
   * through the circuit breaker and its failures count, as an automatic summary's do; what
   * landed stays, and the last resort runs when the context is above its line. It stays
   * requested until a run answers it (see {@link answered}).
   */
  #runRequested(options: CompactionRunOptions): Promise<MaybeCompactReport> {
    const requested = this.#requested ?? {};
    const instructions = [options.instructions, requested.instructions]
      .filter((part) => part !== undefined)
      .join("\n\n");
    const run = { ...options, ...(instructions === "" ? {} : { instructions }) };
    return this.#join("requested", run, requested);
  }

  /** One automatic run, queued, that calls join until it settles (a store's retries within it). */
  #runAuto(options: CompactionRunOptions): Promise<MaybeCompactReport> {
    return this.#join("auto", options);
  }

  /**
   * Starts a run calls join: queued, joined until it settles (then background mode forgets it),
   * reported once the `afterCompact` hooks ran. `requested`: the request it answers.
   */
  #join(
    kind: RunKind,
    options: CompactionRunOptions,
    requested?: { instructions?: string },
  ): Promise<MaybeCompactReport> {
    const joined: JoinedRun = { report: undefined };
    joined.report = this.#report(kind, options, joined, requested);
    this.#joined = joined;
    return joined.report;
  }

  async #report(
    kind: RunKind,
    options: CompactionRunOptions,
    joined: JoinedRun,
    requested: { instructions?: string } | undefined,
  ): Promise<MaybeCompactReport> {
    const { history, queue, hooks, runner, background } = this.#settings;
    const { signal } = options;
    let outcome: CompactionRunOutcome;
    try {
      outcome = await queue.enqueue(
        () =>
          requested === undefined ? runner.run(kind, options) : this.#answer(requested, options),
        signal,
      );
    } catch (error) {
      // The caller stopped waiting before its run began (queued behind another): reported.
      if (signal?.aborted !== true) throw error;
      return abortedReport(history, signal);
    } finally {
      if (this.#joined === joined) {
        this.#joined = undefined;
        if (kind === "auto") background?.reset();
      }
    }
    const report = maybeCompactReport(outcome, history.meter.contextUsed);
    await hooks.after(report.boundaries);
    return report;
  }

  /** Runs a requested compaction; answered, the request goes (one made again meanwhile stays). */
  async #answer(
    requested: { instructions?: string },
    options: CompactionRunOptions,
  ): Promise<CompactionRunOutcome> {
    const outcome = await this.#settings.runner.run("requested", options);
    if (answered(outcome) && this.#requested === requested) this.#requested = undefined;
    return outcome;
  }

  /**
   * `maybeCompact` in background mode: a summary starts and the call returns; one that arrived
   * is applied at the next call, before its request; one in flight is waited for only above the
   * ceiling.
   */
  async #inBackground(
    gate: BackgroundGate,
    options: CompactionRunOptions,
    pending: Promise<MaybeCompactReport> | undefined,
  ): Promise<MaybeCompactReport> {
    const { meter } = this.#settings.history;
    const underCeiling = () => meter.contextUsed <= gate.ceiling * meter.contextLimit;
    const report = () => backgroundReport(meter.contextUsed, meter.contextLimit);
    if (pending !== undefined) {
      if (!gate.waiting && underCeiling()) return report();
      gate.release();
      return this.#joinWithin(pending, options);
    }
    const started = gate.started();
    const run = this.#runAuto({ ...options, background: gate });
    run.catch(() => {});
    const first = await Promise.race([run, started]);
    if (first === "detached" && underCeiling()) return report();
    gate.release();
    return run;
  }

  /**
   * Whether the conversation ends in tool calls waiting for results: no request can go out
   * before they come, and a compaction now would edit what precedes a message whose thinking
   * must come back whole with its results, so compaction waits for them.
   */
  #callsWait(): boolean {
    const { unanswered } = this.#settings.history.openToolUses();
    return unanswered.length > 0;
  }

  /**
   * A call's options, checked; a call from a `beforeCompact` hook is refused (it would wait for
   * the compaction that waits for the hook).
   * @throws {ValidationError} for bad options; {@link CompactionError} `busy` from a hook.
   */
  #check<O>(schema: z.ZodMiniType<O>, options: unknown, method: string): O & CompactionRunOptions {
    const parsed = parseOrThrow(schema, options, `${method} options`);
    if (this.#settings.hooks.inHook) {
      throw new CompactionError(
        "busy",
        `${method}() was called while a beforeCompact hook runs: it would wait for the compaction that waits for the hook; call it after the hook returns`,
      );
    }
    return parsed as O & CompactionRunOptions;
  }
}

/** What a call reports when its signal fired before its run began (or while it joined one). */
function abortedReport(history: History, signal: AbortSignal | undefined): MaybeCompactReport {
  const { meter } = history;
  return { ...idleReport(meter.contextUsed, meter.contextLimit), error: abortedError(signal) };
}
