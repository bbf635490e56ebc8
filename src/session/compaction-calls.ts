import * as z from "zod";
import { CompactionError, parseOrThrow } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { type BackgroundGate, compactInBackground } from "./background.js";
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
  startCall,
} from "./compaction-report.js";
import type { CompactionRunOptions } from "./compaction-run.js";
import type { History } from "./history.js";
import { JoinedRun } from "./joined-run.js";
import type { RunKind } from "./run-policy.js";
import type { SerialQueue } from "./serial-queue.js";

const RequestCompactionSchema = z.strictObject(
  { instructions: z.string({ error: "must be a string" }).exactOptional() },
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

/** One run of the stage loop; a store's reads first and tries again after lost races. */
export type RunAttempt = (
  kind: RunKind,
  options: CompactionRunOptions,
) => Promise<CompactionRunOutcome>;

/** What the calls need of their session. */
export interface CompactionCallsSettings {
  history: History;
  contextLimit: number;
  /** Compactions, one at a time. */
  queue: SerialQueue;
  hooks: CompactionHooks;
  /** Background mode, or `undefined` when it is off. */
  background: BackgroundGate | undefined;
  attempt: RunAttempt;
  /** Whether the circuit breaker pauses summaries now. */
  circuitOpen: () => boolean;
}

/**
 * A session's compaction calls: `maybeCompact` (joined while one runs, background mode, a
 * requested compaction), `forceCompact` (after what is queued), each through the face's run
 * attempt; options checked and calls from a `beforeCompact` hook refused where they enter.
 */
export class CompactionCalls {
  readonly #settings: CompactionCallsSettings;
  readonly #auto = new JoinedRun<MaybeCompactReport>();
  /** A compaction the model (or the app) asked for, run at the next `maybeCompact`. */
  #requested: { instructions?: string } | undefined;

  constructor(settings: CompactionCallsSettings) {
    this.#settings = settings;
  }

  /** `maybeCompact`: options checked, a call while one runs joins it, background mode honoured. */
  maybeCompact(options: unknown): Promise<MaybeCompactReport> {
    const run = (parsed: CompactionRunOptions) => this.#runAuto(parsed);
    return this.#start(MaybeCompactOptionsSchema, options, "maybeCompact", (parsed) => {
      if (this.#callsWait())
        return Promise.resolve(
          idleReport(this.#settings.history.meter.contextUsed, this.#settings.contextLimit),
        );
      // While the breaker pauses summaries, a requested one waits and the run is automatic.
      if (
        this.#requested !== undefined &&
        this.#auto.pending === undefined &&
        !this.#settings.circuitOpen()
      )
        return this.#runRequested(parsed);
      return this.#settings.background === undefined
        ? (this.#auto.pending ?? run(parsed))
        : compactInBackground(this.#settings.background, parsed, {
            contextUsed: () => this.#settings.history.meter.contextUsed,
            contextLimit: this.#settings.contextLimit,
            pending: this.#auto.pending,
            runAuto: run,
          });
    });
  }

  /**
   * Asks for a compaction at the next `maybeCompact`, whatever the thresholds (the model's
   * `compact` tool, or the app at a natural boundary); `instructions` go to the summarizer.
   * @throws {ValidationError} for bad options.
   */
  requestCompaction(options: { instructions?: string } = {}): void {
    const parsed = parseOrThrow(RequestCompactionSchema, options, "requestCompaction options");
    this.#requested =
      parsed.instructions === undefined ? {} : { instructions: parsed.instructions };
  }

  /** Whether a compaction was asked for and has not run yet. */
  get requested(): boolean {
    return this.#requested !== undefined;
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
    return this.#auto.start(
      this.#settings.queue.enqueue(async () => {
        const outcome = await this.#settings.attempt("requested", run);
        // A request made again while this one ran is a new one: it stays.
        if (answered(outcome) && this.#requested === requested) this.#requested = undefined;
        return outcome;
      }),
      async (outcome) => {
        const report = maybeCompactReport(outcome, this.#settings.history.meter.contextUsed);
        await this.#settings.hooks.after(report.boundaries);
        return report;
      },
    );
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

  /** One automatic run, queued (a store's attempt retries after conflicts). */
  #runAuto(options: CompactionRunOptions): Promise<MaybeCompactReport> {
    return this.#auto.start(
      this.#settings.queue.enqueue(() => this.#settings.attempt("auto", options)),
      async (outcome) => {
        const report = maybeCompactReport(outcome, this.#settings.history.meter.contextUsed);
        await this.#settings.hooks.after(report.boundaries);
        return report;
      },
      () => this.#settings.background?.reset(),
    );
  }

  /** `forceCompact`: all or nothing, after the compactions queued before it. */
  forceCompact(options: unknown): Promise<ForceCompactResult> {
    return this.#start(ForceCompactOptionsSchema, options, "forceCompact", async (parsed) => {
      if (this.#callsWait()) {
        throw new CompactionError(
          "busy",
          "the last assistant message's tool calls wait for their results: compact after addToolResults, before the next request (a compaction now would make that message's thinking stale, and the request answering it would fail)",
        );
      }
      if (this.#auto.pending !== undefined) this.#settings.background?.release();
      let before: readonly Message[] = [];
      const outcome = await this.#settings.queue.enqueue(() => {
        before = this.#settings.history.messages;
        return this.#settings.attempt("manual", parsed);
      });
      this.#requested = undefined;
      await this.#settings.hooks.after(outcome.boundaries);
      return forceCompactResult(
        outcome,
        estimateTokens(before),
        estimateTokens(this.#settings.history.messages),
      );
    });
  }

  #start<O, R>(
    schema: z.ZodType<O>,
    options: unknown,
    method: string,
    run: (options: O & CompactionRunOptions) => Promise<R>,
  ): Promise<R> {
    return startCall(schema, options, method, this.#settings.hooks.inHook, (parsed) =>
      run(parsed as O & CompactionRunOptions),
    );
  }
}
