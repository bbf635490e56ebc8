import type * as z from "zod/mini";
import { ContextOverflowRefusalSchema } from "../core/context-overflow.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { isValidDate } from "../core/message-fast-check.js";
import { estimateTokens, rememberValid } from "../core/message-memo.js";
import { allInputTokens, type CompactionUsage } from "../core/usage.js";
import { freezeMessages } from "../internal/frozen.js";
import { CostAccumulator, type CostSummary } from "../models/cost-accumulator.js";
import {
  checkConfiguredWindow,
  checkRefusedWindow,
  checkReportedUsage,
  contextWindowOf,
} from "../models/model-limits.js";
import { pricingForModel } from "../models/presets.js";
import { type ArchiveRecord, MemoryArchive } from "./archive.js";
import { ArchiveKeeper } from "./archive-keeper.js";
import { BackgroundGate } from "./background.js";
import { CompactionCalls } from "./compaction-calls.js";
import { type CompactionCommit, IN_MEMORY_COMMIT } from "./compaction-commit.js";
import { CompactionHooks } from "./compaction-hooks.js";
import type { ForceCompactResult, MaybeCompactReport } from "./compaction-report.js";
import { CompactionRunner } from "./compaction-run.js";
import type { ContentHandles } from "./content-handles.js";
import type { CompactionEvent, CompactionEventListener } from "./events.js";
import { History } from "./history.js";
import { MessageIntake } from "./message-intake.js";
import {
  type AgentSessionOptions,
  AgentSessionOptionsSchema,
  backgroundCeiling,
  DEFAULT_SESSION_OPTIONS,
  type SessionLimits,
  sessionCompactors,
  sessionLimits,
  trimTarget,
} from "./options.js";
import { pricedTiming } from "./run-settings.js";
import { SerialQueue } from "./serial-queue.js";
import type { Intake, SessionEntry } from "./session-entry.js";
import { SessionEvents } from "./session-events.js";
import { type ParsedSnapshot, type SessionSnapshot, serializeMessage } from "./snapshot.js";

/** What a face adds to the session's options: how compactions land. */
export interface SessionCoreSettings {
  /** @default {@link IN_MEMORY_COMMIT} */
  commit?: CompactionCommit;
  /**
   * Handles named after what their records hold (a one-call helper's session, made anew at each
   * call: the same history compacted again names the same handles). @default a counter
   */
  contentHandles?: ContentHandles;
}

/**
 * The one implementation behind `AgentSession` and `StoredSession`: the history, the intake
 * (validate and build an entry, changing nothing), `apply` (the only way state changes, for
 * calls and replayed records alike), and the compaction stages. The faces differ only in what
 * happens between intake and apply (a store persists the entry) and in the commit step.
 */
export class SessionCore {
  readonly sessionId: string;
  readonly clock: Clock;
  readonly history = new History();
  readonly intake: MessageIntake;
  readonly hooks: CompactionHooks;
  readonly keeper: ArchiveKeeper | undefined;
  readonly runner: CompactionRunner;
  /** Compactions, one at a time; `afterCompact` hooks run once a run has settled. */
  readonly queue = new SerialQueue();
  readonly #calls: CompactionCalls;
  readonly #events: SessionEvents;
  /** What the session costs, when it has prices. */
  readonly #costs: CostAccumulator | undefined;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AgentSessionOptions, settings: SessionCoreSettings = {}) {
    const parsed = parseOrThrow(AgentSessionOptionsSchema, options, "AgentSessionOptions");
    this.sessionId = parsed.sessionId ?? newId();
    // The schema checked one of them is there: a configured window wins over the model's.
    const { meter } = this.history;
    meter.contextLimit = parsed.contextLimit ?? contextWindowOf(parsed.model ?? "") ?? Number.NaN;
    this.clock = parsed.clock === undefined ? systemClock : checkedClock(parsed.clock);
    this.#events = new SessionEvents(parsed.logger, parsed.onEvent);
    const limits = sessionLimits(parsed);
    const keepStaleThinking = parsed.keepStaleThinking ?? DEFAULT_SESSION_OPTIONS.keepStaleThinking;
    this.hooks = new CompactionHooks(parsed, limits.hookTimeoutMs);
    const archive = options.archive ?? new MemoryArchive();
    this.keeper =
      archive === false
        ? undefined
        : new ArchiveKeeper(archive, this.sessionId, {
            contentHandles: settings.contentHandles,
          });
    this.intake = new MessageIntake({
      history: this.history,
      sessionId: this.sessionId,
      clock: this.clock,
      maxBlockShare: parsed.maxBlockShare ?? DEFAULT_SESSION_OPTIONS.maxBlockShare,
      archive: this.keeper,
      keepStaleThinking,
    });
    const pricing =
      parsed.pricing ?? (parsed.model === undefined ? undefined : pricingForModel(parsed.model));
    this.#costs = pricing === undefined ? undefined : new CostAccumulator(pricing);
    const commit = settings.commit ?? IN_MEMORY_COMMIT;
    this.runner = this.#runner(options, parsed, commit, limits, keepStaleThinking);
    if (parsed.model !== undefined)
      this.#events.warnConfiguredWindow(checkConfiguredWindow(parsed.model, parsed.contextLimit));
    const ceiling = backgroundCeiling(parsed.background);
    this.#calls = new CompactionCalls({
      history: this.history,
      queue: this.queue,
      hooks: this.hooks,
      background: ceiling === undefined ? undefined : new BackgroundGate(ceiling),
      runner: this.runner,
    });
  }

  /** The compactions' runner, on the session's window as it is at each run. */
  #runner(
    options: AgentSessionOptions,
    parsed: z.output<typeof AgentSessionOptionsSchema>,
    commit: CompactionCommit,
    limits: SessionLimits,
    keepStaleThinking: boolean,
  ): CompactionRunner {
    const compactors = sessionCompactors(options, this.contextLimit);
    return new CompactionRunner({
      history: this.history,
      compactors,
      pricedTiming: pricedTiming(this.#costs?.pricing, compactors, this.contextLimit),
      maxConsecutiveFailures:
        parsed.maxConsecutiveFailures ?? DEFAULT_SESSION_OPTIONS.maxConsecutiveFailures,
      trimTarget: trimTarget(parsed.trimOnOverflow),
      clock: this.clock,
      events: this.#events,
      hooks: this.hooks,
      keepStaleThinking,
      archive: this.keeper,
      commit,
      costs: this.#costs,
      limits,
    });
  }

  /** The model's context window in tokens: configured, or learned from a refusal (see {@link recordContextOverflow}). */
  get contextLimit(): number {
    return this.history.meter.contextLimit;
  }

  /**
   * Takes a provider's refusal for length: when it names a window below the session's, that
   * window is the session's from now on (every threshold, the last resort and clamping measure
   * by it), with a `context_window_warning` (`refused_above_window`) and a logger warning. The
   * size of the refused request, when it names one, is the measure of the messages as they are
   * (what the request held that the session never saw counts from now on). Whether the window
   * changed.
   * @throws {ValidationError} naming the field for a bad refusal.
   */
  recordContextOverflow(refusal: unknown): boolean {
    const parsed = parseOrThrow(ContextOverflowRefusalSchema, refusal, "context overflow refusal");
    if (parsed.requestTokens !== undefined) this.history.meter.refused(parsed.requestTokens);
    const problem = checkRefusedWindow(parsed, this.contextLimit);
    if (problem === undefined) return false;
    this.history.meter.contextLimit = parsed.windowTokens;
    this.#events.warnWindowAgain(problem);
    return true;
  }

  /** What compactions cost, summed. */
  get compactionUsage(): Readonly<CompactionUsage> {
    return this.runner.usage;
  }

  /** Whether a compaction is running now. */
  get isCompacting(): boolean {
    return this.queue.running;
  }

  /** Applies what the intake built and returns the call's value (the in-memory face). */
  take<T>(intake: Intake<T>): T {
    if (intake.entry !== undefined) void this.kept(this.apply(intake.entry));
    for (const event of intake.events) this.emit(event);
    return intake.result;
  }

  /**
   * Resolves once the archive kept what an entry's clamping cut (or `what` else it was given:
   * a replayed record's originals, a snapshot's records), or failed to: a failure is logged,
   * never thrown (a clamp's originals stay in memory, recalled from there, and are put again
   * with the next clamp's; the entry itself is applied).
   */
  async kept(keeping: Promise<unknown> | undefined, what = "what clamping cut"): Promise<void> {
    try {
      await keeping;
    } catch (error) {
      this.#events.log(`the archive could not keep ${what}`, { error });
    }
  }

  /**
   * Applies one entry: the only way a session's state changes outside a compaction, for a
   * call's entry and a stored record alike. Trusts it: the intake or the record's schema
   * validated it. Resolves once the archive keeps what clamping cut (`store: false`, a record
   * another worker wrote: it kept them).
   */
  apply(entry: SessionEntry, options: { store?: boolean } = {}): Promise<void> | undefined {
    const { history } = this;
    switch (entry.kind) {
      case "messages": {
        // Nothing a caller holds may change the history: what enters is frozen, once.
        freezeMessages(entry.messages);
        rememberValid(entry.messages);
        const [first, ...rest] = entry.messages;
        if (entry.replacesLast === true && first !== undefined) {
          history.replaceLast(first);
          history.push(rest);
        } else history.push(entry.messages);
        storeSummaries(history, entry.messages);
        this.#pin(entry.pinned ?? []);
        this.keeper?.acceptNamed(entry.messages);
        return this.#archive(entry.archive ?? [], options.store !== false);
      }
      case "pins":
        this.#pin(entry.messageIds);
        return undefined;
      case "usage": {
        history.meter.recorded(entry.usage, history.messages);
        this.#costs?.addRequest(entry.usage);
        this.#events.warnWindow(checkReportedUsage(allInputTokens(entry.usage), this.contextLimit));
        return undefined;
      }
      case "summaries":
        for (const [toolUseId, text] of Object.entries(entry.summaries))
          history.summaries.set(toolUseId, text);
        return undefined;
    }
  }

  /**
   * Takes the handles of what clamping cut and keeps the originals. A replayed record
   * (`store: false`) was kept by its writer, unless the writer stopped between landing it and
   * keeping them: what the archive lacks is kept from the record, in the background.
   */
  #archive(records: readonly ArchiveRecord[], store: boolean): Promise<void> | undefined {
    if (records.length === 0 || this.keeper === undefined) return undefined;
    this.keeper.accept(records);
    if (store) return this.keeper.keepClamped(records);
    void this.kept(this.keeper.storeMissing(records));
    return undefined;
  }

  /** What the session cost so far in dollars (requests, compactions, total); `undefined` without prices. */
  get cost(): CostSummary | undefined {
    return this.#costs?.summary();
  }

  /** Pins what is here (a pin replayed after the message was folded finds it gone). */
  #pin(messageIds: readonly string[]): void {
    for (const id of messageIds) if (this.history.has(id)) this.history.pinned.add(id);
  }

  /** Subscribes to events; returns the unsubscribe function (see {@link SessionEvents.on}). */
  on(listener: CompactionEventListener): () => void {
    return this.#events.on(listener);
  }

  emit(event: CompactionEvent): void {
    this.#events.emit(event);
  }

  /** The archived original a placeholder names. */
  recall(handle: string): Promise<ArchiveRecord> {
    if (this.keeper === undefined) {
      return Promise.reject(
        new ValidationError("recall", [
          { path: [], message: "this session keeps no archive (archive: false)" },
        ]),
      );
    }
    return this.keeper.recall(handle);
  }

  /** `maybeCompact` (see {@link CompactionCalls.maybeCompact}). */
  maybeCompact(options: unknown): Promise<MaybeCompactReport> {
    return this.#calls.maybeCompact(options);
  }

  /** `requestCompaction` (see {@link CompactionCalls.requestCompaction}). */
  requestCompaction(options: { instructions?: string } = {}): void {
    this.#calls.requestCompaction(options);
  }

  /** Whether a compaction was asked for and has not run yet. */
  get compactionRequested(): boolean {
    return this.#calls.requested;
  }

  /** `forceCompact` (see {@link CompactionCalls.forceCompact}). */
  forceCompact(options: unknown): Promise<ForceCompactResult> {
    return this.#calls.forceCompact(options);
  }

  /** A snapshot of the session; with `conversation`, as it would be once that replaced the history. */
  toJSON(conversation?: readonly Message[]): SessionSnapshot {
    const { history, keeper } = this;
    const messages = conversation ?? history.messages;
    return {
      version: 1,
      sessionId: this.sessionId,
      contextLimit: this.contextLimit,
      messages: messages.map(serializeMessage),
      compactSummaries: Object.fromEntries(
        conversation === undefined ? history.summaries : history.summariesAfter(conversation),
      ),
      meter:
        conversation === undefined
          ? history.meter.state
          : history.meter.stateAfterReplace(estimateTokens(conversation)),
      lastTurnNumber: history.lastTurnNumber,
      ...this.runner.breaker.snapshot,
      pinned: [...history.pinned],
      ...(keeper === undefined ? {} : { archive: keeper.snapshot() }),
      // A store's head (written with `conversation`, as a compaction lands) leaves it out: the
      // request is this worker's, and the compaction landing answers it.
      ...(conversation !== undefined || this.#calls.request === undefined
        ? {}
        : { compactionRequested: this.#calls.request }),
    };
  }

  /** Takes a validated snapshot's state in place of this one's. */
  load(snapshot: ParsedSnapshot): void {
    this.history.restore(snapshot);
    // The meter's state holds a whole correction: a fractional one in range reads rounded.
    const { correction } = this.history.meter.state;
    if (correction !== Math.round(snapshot.meter.correction))
      this.#events.log("the snapshot's meter.correction is out of a meter's range: held to it", {
        correction: snapshot.meter.correction,
        held: correction,
      });
    if (snapshot.archive !== undefined)
      void this.kept(
        this.keeper?.restore(snapshot.archive, snapshot.messages),
        "the restored records",
      );
    // A snapshot of a session that kept no archive: the counter still moves past the handles
    // its messages name.
    else this.keeper?.acceptNamed(snapshot.messages);
    // `archive: false` is the caller's choice, so it restores; but the originals its messages'
    // recall marks name are lost with it, which is said.
    const dropped = snapshot.archive?.records?.length ?? 0;
    if (this.keeper === undefined && dropped > 0)
      this.#events.log(
        `restored with archive: false, the snapshot's ${dropped} archived originals are dropped: the recall handles its messages name cannot be recalled`,
        { records: dropped },
      );
    this.runner.breaker.restore(snapshot);
    if (snapshot.compactionRequested !== undefined)
      this.#calls.requestCompaction(snapshot.compactionRequested);
  }
}

/** Stores the compact summaries the tool results of `messages` carry (indexed loops: no iterators). */
function storeSummaries(history: History, messages: readonly Message[]): void {
  for (let index = 0; index < messages.length; index += 1) {
    const { content } = messages[index]!;
    for (let at = 0; at < content.length; at += 1) {
      const block = content[at]!;
      if (block.type === "tool_result" && block.compactSummary !== undefined)
        history.summaries.set(block.toolUseId, block.compactSummary);
    }
  }
}

/**
 * The caller's clock, each answer checked where it enters: a session's messages are dated with
 * valid Dates. @throws {ValidationError} naming `clock`, before the message it would date is taken.
 */
function checkedClock(clock: Clock): Clock {
  return () => {
    const now = clock();
    if (isValidDate(now)) return now;
    throw new ValidationError("AgentSessionOptions", [
      { path: ["clock"], message: "must return a valid Date" },
    ]);
  };
}
