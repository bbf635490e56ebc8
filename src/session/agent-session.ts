import type { z } from "zod";
import type { CompactionUsage } from "../core/compactor.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type {
  AssistantMessage,
  ContentBlock,
  JsonObject,
  Message,
  UserMessage,
} from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import { isPlainObject } from "../core/plain-object.js";
import { type ArchiveRecord, MemoryArchive } from "./archive.js";
import { ArchiveKeeper } from "./archive-keeper.js";
import { BackgroundGate, compactInBackground } from "./background.js";
import { CompactionHooks } from "./compaction-hooks.js";
import {
  type ForceCompactOptions,
  ForceCompactOptionsSchema,
  type ForceCompactResult,
  forceCompactResult,
  type MaybeCompactOptions,
  MaybeCompactOptionsSchema,
  type MaybeCompactReport,
  maybeCompactReport,
  startCall,
} from "./compaction-report.js";
import { CompactionRunner, type CompactionRunOptions } from "./compaction-run.js";
import type { Usage } from "./context-meter.js";
import type { CompactionEvent, CompactionEventListener } from "./events.js";
import { History } from "./history.js";
import { JoinedRun } from "./joined-run.js";
import { MessageIntake } from "./message-intake.js";
import {
  type AgentSessionOptions,
  AgentSessionOptionsSchema,
  sessionCompactors,
  trimTarget,
} from "./options.js";
import { SerialQueue } from "./serial-queue.js";
import {
  parseSnapshot,
  type SessionRestoreOptions,
  type SessionSnapshot,
  serializeMessage,
} from "./snapshot.js";
import type { ToolResultInput } from "./tool-results.js";

/**
 * A conversation with its context measure and compaction: call `maybeCompact()` before
 * every model request and build the request from `messages` afterwards.
 *
 * @example
 * const session = new AgentSession({ contextLimit: 200_000 });
 * session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const request = session.messages; // build the model request from these
 */
export class AgentSession {
  readonly #sessionId: string;
  readonly #contextLimit: number;
  readonly #clock: Clock;
  readonly #listeners = new Set<CompactionEventListener>();
  readonly #history = new History();
  readonly #runner: CompactionRunner;
  readonly #hooks: CompactionHooks;
  readonly #keeper: ArchiveKeeper | undefined;
  readonly #intake: MessageIntake;
  /** Background mode, or `undefined` when it is off. */
  readonly #background: BackgroundGate | undefined;
  readonly #logger: AgentSessionOptions["logger"];
  /**
   * Compactions, one at a time. Callers run the `afterCompact` hooks once their run has
   * settled, when the session is free again, so a hook may start a compaction.
   */
  readonly #queue = new SerialQueue();
  readonly #auto = new JoinedRun<MaybeCompactReport>();

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AgentSessionOptions) {
    const parsed = parseOrThrow(AgentSessionOptionsSchema, options, "AgentSessionOptions");
    this.#sessionId = parsed.sessionId ?? newId();
    this.#contextLimit = parsed.contextLimit;
    this.#clock = parsed.clock ?? systemClock;
    this.#logger = parsed.logger;
    const background = parsed.background ?? false;
    this.#background =
      background === false
        ? undefined
        : new BackgroundGate(background === true ? 0.95 : (background.ceiling ?? 0.95));
    this.#intake = new MessageIntake({
      history: this.#history,
      sessionId: this.#sessionId,
      clock: this.#clock,
      maxBlockTokens: Math.floor((parsed.maxBlockShare ?? 0.25) * parsed.contextLimit),
      emit: (event) => this.#emit(event),
    });
    this.#hooks = new CompactionHooks(parsed.beforeCompact, parsed.afterCompact, parsed.logger);
    const archive = options.archive ?? new MemoryArchive();
    this.#keeper = archive === false ? undefined : new ArchiveKeeper(archive, this.#sessionId);
    this.#runner = new CompactionRunner({
      history: this.#history,
      contextLimit: parsed.contextLimit,
      compactors: sessionCompactors(options),
      maxConsecutiveFailures: parsed.maxConsecutiveFailures ?? 3,
      trimTarget: trimTarget(parsed.trimOnOverflow),
      clock: this.#clock,
      emit: (event) => this.#emit(event),
      hooks: this.#hooks,
      keepStaleThinking: parsed.keepStaleThinking ?? false,
      archive: this.#keeper,
    });
    if (parsed.onEvent) this.#listeners.add(parsed.onEvent);
  }

  /** Restores a session from {@link AgentSession.toJSON}'s snapshot; `options` supply what JSON cannot hold. */
  static fromJSON(snapshot: unknown, options: SessionRestoreOptions = {}): AgentSession {
    if (!isPlainObject(options)) {
      throw new ValidationError("fromJSON options", [{ path: [], message: "must be an object" }]);
    }
    const parsed = parseSnapshot(snapshot);
    const session = new AgentSession({
      ...options,
      contextLimit: options.contextLimit ?? parsed.contextLimit,
      sessionId: parsed.sessionId,
    });
    session.#history.restore(parsed);
    if (parsed.archive !== undefined) session.#keeper?.restore(parsed.archive);
    session.#runner.consecutiveFailures = parsed.consecutiveFailures;
    return session;
  }

  /** This session's id (stamped on the messages its helpers create). */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** The model's context window in tokens. */
  get contextLimit(): number {
    return this.#contextLimit;
  }

  /**
   * Tokens the next request's messages take: the last reported usage (input + cache creation
   * + cache read + output) plus an estimate of the messages appended since.
   */
  get contextUsed(): number {
    return this.#history.meter.contextUsed;
  }

  /** The conversation, a frozen snapshot; build each request from it after `maybeCompact()`. */
  get messages(): readonly Message[] {
    return this.#history.messages;
  }

  /** The compact summaries stored so far, by tool use id. */
  get compactSummaries(): ReadonlyMap<string, string> {
    return this.#history.summaries;
  }

  /** Whether a compaction is running now. */
  get isCompacting(): boolean {
    return this.#queue.running;
  }

  /** Appends messages as they are. All are validated first; none is added if one is bad. */
  append(...messages: Message[]): void {
    this.#intake.append(...messages);
  }

  /**
   * Appends a user message with `text`, opening a new turn. `pinned`: no compaction ever
   * changes or removes it (see {@link AgentSession.pin}).
   */
  addUserText(text: string, options: { pinned?: boolean } = {}): UserMessage {
    return this.#intake.addUserText(text, options);
  }

  /**
   * Pins one of the user's own messages (no tool results in it): no compaction changes or
   * removes it, and after a summary it comes back right after the summary.
   * @throws {ValidationError} for an unknown id or a message that cannot be pinned.
   */
  pin(messageId: string): void {
    this.#intake.pin(messageId);
  }

  /**
   * What a compaction removed or replaced, by the recall handle its placeholder names
   * (`[recall r7-3f2a]`): the original tool result, tool input, or messages.
   * @throws {ValidationError} for a handle this session never gave, or with `archive: false`.
   */
  recall(handle: string): Promise<ArchiveRecord> {
    if (this.#keeper === undefined) {
      return Promise.reject(
        new ValidationError("recall", [
          { path: [], message: "this session keeps no archive (archive: false)" },
        ]),
      );
    }
    return this.#keeper.recall(handle);
  }

  /** Appends an assistant message to the current turn. */
  addAssistant(content: ContentBlock[]): AssistantMessage {
    return this.#intake.addAssistant(content);
  }

  /**
   * Appends tool results as one user message in the current turn, and stores each result's
   * `compactSummary` for later compaction. Takes the library's shape (`isError` optional) or
   * the Anthropic SDK's (`tool_use_id`, `is_error`); each must answer a `tool_use` of the
   * assistant message right before.
   */
  addToolResults(results: ToolResultInput[]): UserMessage {
    return this.#intake.addToolResults(results);
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): void {
    this.#intake.recordUsage(usage);
  }

  /**
   * Reports what the API changed in the last request before the model read it (a response's
   * `input_transformations`, e.g. thinking dropped with `prefix_mismatch_behavior:
   * "drop_block"`) as an `input_transformations` event. `appendAnthropicResponse` calls it.
   */
  recordInputTransformations(transformations: readonly JsonObject[]): void {
    this.#intake.recordInputTransformations(transformations);
  }

  /** Reports a response's `context_management.applied_edits` (event `context_edits_applied`). */
  recordContextEdits(edits: readonly JsonObject[]): void {
    this.#intake.recordContextEdits(edits);
  }

  /** Reports a response's `diagnostics.cache_miss_reason` (event `cache_diagnosis`). */
  recordCacheDiagnosis(reason: JsonObject | null): void {
    this.#intake.recordCacheDiagnosis(reason);
  }

  /** Appends a mid-conversation `role: "system"` message to the current turn, where you put it. */
  addSystemMessage(text: string): Message {
    return this.#intake.addSystemMessage(text);
  }

  /** What compactions cost (the summarizer's usage, where the compactor reports it), summed. */
  get compactionUsage(): Readonly<CompactionUsage> {
    return this.#runner.usage;
  }

  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(summaries: ReadonlyMap<string, string> | Record<string, string>): void {
    this.#intake.storeCompactSummaries(summaries);
  }

  /** Subscribes to compaction events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Compacts if the context is above a compactor's threshold: the first compactor, then the
   * second judged on what the first left. Call before every model request. Never rejects
   * for a summarizer failure: the report carries it. A call while one runs joins it.
   */
  maybeCompact(options: MaybeCompactOptions = {}): Promise<MaybeCompactReport> {
    return this.#start(MaybeCompactOptionsSchema, options, "maybeCompact", (parsed) =>
      this.#background === undefined
        ? (this.#auto.pending ?? this.#runAuto(parsed))
        : compactInBackground(this.#background, parsed, {
            contextUsed: () => this.contextUsed,
            contextLimit: this.#contextLimit,
            pending: this.#auto.pending,
            runAuto: (options) => this.#runAuto(options),
          }),
    );
  }

  /** One automatic run; a call while it is queued or running joins it. */
  #runAuto(options: CompactionRunOptions): Promise<MaybeCompactReport> {
    return this.#auto.start(
      this.#queue.enqueue(() => this.#runner.run("auto", options)),
      async (outcome) => {
        const report = maybeCompactReport(outcome, this.contextUsed);
        await this.#hooks.after(report.boundaries);
        return report;
      },
      () => this.#background?.reset(),
    );
  }

  /**
   * Compacts now, whatever the thresholds. All or nothing: on failure it rejects with
   * `CompactionError` and the conversation is as it was. Waits for a running compaction first.
   */
  forceCompact(options: ForceCompactOptions = {}): Promise<ForceCompactResult> {
    return this.#start(ForceCompactOptionsSchema, options, "forceCompact", async (parsed) => {
      if (this.#auto.pending !== undefined) this.#background?.release();
      // What the run finds, once the compactions queued before it are done.
      let before: readonly Message[] = [];
      const outcome = await this.#queue.enqueue(() => {
        before = this.#history.messages;
        return this.#runner.run("manual", parsed);
      });
      await this.#hooks.after(outcome.boundaries);
      return forceCompactResult(
        outcome,
        estimateTokens(before),
        estimateTokens(this.#history.messages),
      );
    });
  }

  /**
   * A JSON-safe snapshot of the conversation, its measure, its pins and its archive (the
   * records too with the default in-memory archive); restore with `fromJSON`.
   */
  toJSON(): SessionSnapshot {
    const history = this.#history;
    const keeper = this.#keeper;
    return {
      version: 1,
      sessionId: this.#sessionId,
      contextLimit: this.#contextLimit,
      messages: history.messages.map(serializeMessage),
      compactSummaries: Object.fromEntries(history.summaries),
      meter: history.meter.state,
      lastTurnNumber: history.lastTurnNumber,
      consecutiveFailures: this.#runner.consecutiveFailures,
      pinned: [...history.pinned],
      ...(keeper === undefined ? {} : { archive: keeper.snapshot() }),
    };
  }

  /** Validates a call's options; refuses one from a `beforeCompact` hook (see {@link startCall}). */
  #start<O, R>(
    schema: z.ZodType<O>,
    options: unknown,
    method: string,
    run: (options: O & CompactionRunOptions) => Promise<R>,
  ): Promise<R> {
    return startCall(schema, options, method, this.#hooks.inHook, (parsed) =>
      run(parsed as O & CompactionRunOptions),
    );
  }

  #emit(event: CompactionEvent): void {
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
}
