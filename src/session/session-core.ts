import type { CompactionUsage, Compactor } from "../core/compactor.js";
import { compactorTarget } from "../core/compactor-target.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { rememberValid } from "../core/message-memo.js";
import {
  type ConfiguredWindowProblem,
  checkConfiguredWindow,
  checkReportedUsage,
  contextWindowOf,
  type UsageAboveWindow,
} from "../core/models.js";
import { freezeMessages } from "../internal/frozen.js";
import { CostAccumulator, type CostSummary } from "../pricing/cost-accumulator.js";
import type { ResolvedModelPricing } from "../pricing/model-pricing.js";
import { pricingForModel } from "../pricing/presets.js";
import { RewriteBudget } from "../pricing/rewrite-budget.js";
import { type ArchiveRecord, MemoryArchive } from "./archive.js";
import { ArchiveKeeper } from "./archive-keeper.js";
import { BackgroundGate } from "./background.js";
import { CompactionCalls, type RunAttempt } from "./compaction-calls.js";
import { type CompactionCommit, IN_MEMORY_COMMIT } from "./compaction-commit.js";
import { CompactionHooks } from "./compaction-hooks.js";
import type { ForceCompactResult, MaybeCompactReport } from "./compaction-report.js";
import { CompactionRunner } from "./compaction-run.js";
import type { CompactionEvent, CompactionEventListener } from "./events.js";
import { History } from "./history.js";
import { MessageIntake } from "./message-intake.js";
import {
  type AgentSessionOptions,
  AgentSessionOptionsSchema,
  sessionCompactors,
  sessionLimits,
  trimTarget,
} from "./options.js";
import type { PricedTiming } from "./run-settings.js";
import { SerialQueue } from "./serial-queue.js";
import type { Intake, SessionEntry } from "./session-entry.js";
import { type ParsedSnapshot, type SessionSnapshot, serializeMessage } from "./snapshot.js";

export type { RunAttempt } from "./compaction-calls.js";

/** What a face adds to the session's options: how compactions land, and how a run is attempted. */
export interface SessionCoreSettings {
  /** @default {@link IN_MEMORY_COMMIT} */
  commit?: CompactionCommit;
  /** @default the runner's `run`, once */
  attempt?: RunAttempt;
}

/**
 * The one implementation behind `AgentSession` and `StoredSession`: the history, the intake
 * (validate and build an entry, changing nothing), `apply` (the only way state changes, for
 * calls and replayed records alike), and the compaction stages. The faces differ only in what
 * happens between intake and apply (a store persists the entry) and in the commit step.
 */
export class SessionCore {
  readonly sessionId: string;
  readonly contextLimit: number;
  readonly clock: Clock;
  readonly history = new History();
  readonly intake: MessageIntake;
  readonly hooks: CompactionHooks;
  readonly keeper: ArchiveKeeper | undefined;
  readonly runner: CompactionRunner;
  /** Compactions, one at a time; `afterCompact` hooks run once a run has settled. */
  readonly queue = new SerialQueue();
  readonly #calls: CompactionCalls;
  readonly #listeners = new Set<CompactionEventListener>();
  readonly #logger: AgentSessionOptions["logger"];
  /** What the session costs, when it has prices. */
  readonly #costs: CostAccumulator | undefined;
  /** The window problems reported so far (each kind once). */
  readonly #windowWarnings = new Set<string>();

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AgentSessionOptions, settings: SessionCoreSettings = {}) {
    const parsed = parseOrThrow(AgentSessionOptionsSchema, options, "AgentSessionOptions");
    this.sessionId = parsed.sessionId ?? newId();
    // The schema checked one of them is there: a configured window wins over the model's.
    const contextLimit = parsed.contextLimit ?? contextWindowOf(parsed.model ?? "") ?? Number.NaN;
    this.contextLimit = contextLimit;
    this.clock = parsed.clock ?? systemClock;
    this.#logger = parsed.logger;
    const limits = sessionLimits(parsed);
    this.hooks = new CompactionHooks(parsed, limits.hookTimeoutMs);
    const archive = options.archive ?? new MemoryArchive();
    const keeper = archive === false ? undefined : new ArchiveKeeper(archive, this.sessionId);
    this.keeper = keeper;
    this.intake = new MessageIntake({
      history: this.history,
      sessionId: this.sessionId,
      clock: this.clock,
      maxBlockTokens: Math.floor((parsed.maxBlockShare ?? 0.25) * contextLimit),
      ...(keeper === undefined ? {} : { handleAt: (offset: number) => keeper.handleAt(offset) }),
    });
    const pricing =
      parsed.pricing ?? (parsed.model === undefined ? undefined : pricingForModel(parsed.model));
    this.#costs = pricing === undefined ? undefined : new CostAccumulator(pricing);
    const compactors = sessionCompactors(options, contextLimit);
    this.runner = new CompactionRunner({
      history: this.history,
      contextLimit,
      compactors,
      pricedTiming: pricedTiming(this.#costs?.pricing, compactors, contextLimit),
      maxConsecutiveFailures: parsed.maxConsecutiveFailures ?? 3,
      trimTarget: trimTarget(parsed.trimOnOverflow),
      clock: this.clock,
      emit: (event) => this.emit(event),
      hooks: this.hooks,
      keepStaleThinking: parsed.keepStaleThinking ?? false,
      archive: this.keeper,
      commit: settings.commit ?? IN_MEMORY_COMMIT,
      onUsage: (usage) => this.#costs?.addCompaction(usage),
      limits,
    });
    if (parsed.onEvent) this.#listeners.add(parsed.onEvent);
    if (parsed.model !== undefined)
      this.#warnWindow(checkConfiguredWindow(parsed.model, parsed.contextLimit));
    const background = parsed.background ?? false;
    this.#calls = new CompactionCalls({
      history: this.history,
      contextLimit,
      queue: this.queue,
      hooks: this.hooks,
      background:
        background === false
          ? undefined
          : new BackgroundGate(background === true ? 0.95 : (background.ceiling ?? 0.95)),
      attempt: settings.attempt ?? ((trigger, run) => this.runner.run(trigger, run)),
    });
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
    if (intake.entry !== undefined) {
      this.apply(intake.entry)?.catch((error: unknown) => {
        this.#logger?.warn("agent-compaction: the archive could not keep what clamping cut", {
          error,
        });
      });
    }
    for (const event of intake.events) this.emit(event);
    return intake.result;
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
        for (const message of entry.messages) {
          for (const block of message.content) {
            if (block.type === "tool_result" && block.compactSummary !== undefined)
              history.summaries.set(block.toolUseId, block.compactSummary);
          }
        }
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
        const { inputTokens, cacheCreationInputTokens = 0, cacheReadInputTokens = 0 } = entry.usage;
        const sent = inputTokens + cacheCreationInputTokens + cacheReadInputTokens;
        this.#warnWindow(checkReportedUsage(sent, this.contextLimit));
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
    if (store) return this.keeper.store(records);
    this.keeper.storeMissing(records).catch((error: unknown) => {
      this.#logger?.warn("agent-compaction: the archive could not keep what clamping cut", {
        error,
      });
    });
    return undefined;
  }

  /** What the session cost so far in dollars (requests, compactions, total); `undefined` without prices. */
  get cost(): CostSummary | undefined {
    return this.#costs?.summary();
  }

  /** Reports a window problem once per kind: an event and a logger warning. */
  #warnWindow(problem: UsageAboveWindow | ConfiguredWindowProblem | undefined): void {
    if (problem === undefined || this.#windowWarnings.has(problem.kind)) return;
    this.#windowWarnings.add(problem.kind);
    this.#logger?.warn(`agent-compaction: ${problem.message}`, { problem });
    this.emit({ type: "context_window_warning", problem });
  }

  /** Pins what is here (a pin replayed after the message was folded finds it gone). */
  #pin(messageIds: readonly string[]): void {
    for (const id of messageIds) if (this.history.has(id)) this.history.pinned.add(id);
  }

  /** Subscribes to events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: CompactionEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger?.warn("agent-compaction: an event listener threw", {
          event: event.type,
          error,
        });
      }
    }
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
      meter: conversation === undefined ? history.meter.state : history.meter.stateAfterReplace,
      lastTurnNumber: history.lastTurnNumber,
      ...this.runner.circuit,
      pinned: [...history.pinned],
      ...(keeper === undefined ? {} : { archive: keeper.snapshot() }),
    };
  }

  /** Takes a validated snapshot's state in place of this one's. */
  load(snapshot: ParsedSnapshot): void {
    this.history.restore(snapshot);
    if (snapshot.archive !== undefined) this.keeper?.restore(snapshot.archive);
    this.runner.restoreCircuit(snapshot);
  }
}

/**
 * What times a priced session's automatic compactions: a budget from its prices and the target
 * of its first compactor that has one, and that compactor; `undefined` without prices or such a
 * compactor.
 */
function pricedTiming(
  pricing: ResolvedModelPricing | undefined,
  compactors: readonly Compactor[],
  contextLimit: number,
): PricedTiming | undefined {
  if (pricing === undefined) return undefined;
  for (const compactor of compactors) {
    const target = compactorTarget(compactor);
    if (target === undefined) continue;
    return { budget: new RewriteBudget(pricing, Math.floor(target * contextLimit)), compactor };
  }
  return undefined;
}
