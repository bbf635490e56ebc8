import { z } from "zod";
import { isAbortSignal } from "../core/abort.js";
import type { CompactionResult, Compactor } from "../core/compactor.js";
import { CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type {
  AssistantMessage,
  ContentBlock,
  JsonObject,
  Message,
  TurnId,
  UserMessage,
} from "../core/message.js";
import { type Clock, createMessage, newId, systemClock } from "../core/message-factory.js";
import { isPlainObject } from "../core/plain-object.js";
import { ContentBlockSchema, JsonObjectSchema, MessageSchema } from "../core/schemas.js";
import { estimateTokens } from "../core/tokens.js";
import { markValidated } from "../core/validate-conversation.js";
import { clampMessage } from "./clamp.js";
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
} from "./compaction-report.js";
import {
  CompactionRunner,
  type CompactionRunOptions,
  type CompactionRunOutcome,
  type CompactionStepResult,
} from "./compaction-run.js";
import { type Usage, UsageSchema } from "./context-meter.js";
import type { CompactionEvent, CompactionEventListener } from "./events.js";
import { History, USER_TURN_OWNER } from "./history.js";
import type { CompactionBoundary } from "./hooks.js";
import {
  type AgentSessionOptions,
  AgentSessionOptionsSchema,
  sessionCompactors,
  trimTarget,
} from "./options.js";
import { parseSnapshot, type SessionRestoreOptions, type SessionSnapshot } from "./snapshot.js";
import { type ToolResultInput, toToolResultBlocks } from "./tool-results.js";

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
  readonly #maxBlockTokens: number;
  readonly #logger: AgentSessionOptions["logger"];
  #queue: Promise<unknown> = Promise.resolve();
  #pendingAuto: Promise<MaybeCompactReport> | undefined;
  #running = 0;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AgentSessionOptions) {
    const parsed = parseOrThrow(AgentSessionOptionsSchema, options, "AgentSessionOptions");
    this.#sessionId = parsed.sessionId ?? newId();
    this.#contextLimit = parsed.contextLimit;
    this.#clock = parsed.clock ?? systemClock;
    this.#logger = parsed.logger;
    this.#maxBlockTokens = Math.floor((parsed.maxBlockShare ?? 0.25) * parsed.contextLimit);
    this.#hooks = new CompactionHooks(parsed.beforeCompact, parsed.afterCompact, parsed.logger);
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
    const history = session.#history;
    const duplicates = history.duplicateIssues(parsed.messages);
    if (duplicates.length > 0) {
      throw new ValidationError(
        "session snapshot",
        duplicates.map((issue) => ({ ...issue, path: ["messages", ...issue.path] })),
      );
    }
    markValidated(parsed.messages);
    history.replace(parsed.messages);
    history.meter.restore(parsed.meter, parsed.messages);
    for (const [toolUseId, summary] of Object.entries(parsed.compactSummaries))
      history.summaries.set(toolUseId, summary);
    history.lastTurnNumber = parsed.lastTurnNumber;
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
    return this.#running > 0;
  }

  /** Appends messages as they are. All are validated first; none is added if one is bad. */
  append(...messages: Message[]): void {
    parseOrThrow(z.array(MessageSchema), messages, "messages");
    const issues = this.#history.duplicateIssues(messages);
    if (issues.length > 0) throw new ValidationError("messages", issues);
    this.#push(messages);
  }

  /** Appends a user message with `text`, opening a new turn. */
  addUserText(text: string): UserMessage {
    parseOrThrow(z.string().min(1, "must be a non-empty string"), text, "text");
    const turnId = { owner: USER_TURN_OWNER, number: this.#history.lastTurnNumber + 1 };
    return this.#add("user", turnId, [{ type: "text", text }]);
  }

  /** Appends an assistant message to the current turn. */
  addAssistant(content: ContentBlock[]): AssistantMessage {
    const blocks = parseOrThrow(
      z.array(ContentBlockSchema).min(1, "must hold at least one block"),
      content,
      "assistant content",
    );
    const issues = this.#history
      .duplicateIssues([{ id: "", content: blocks }])
      .map((issue) => ({ ...issue, path: issue.path.slice(2) }));
    if (issues.length > 0) throw new ValidationError("assistant content", issues);
    return this.#add("assistant", this.#currentTurn("addAssistant"), blocks);
  }

  /**
   * Appends tool results as one user message in the current turn, and stores each result's
   * `compactSummary` for later compaction. Takes the library's shape (`isError` optional) or
   * the Anthropic SDK's (`tool_use_id`, `is_error`); each must answer a `tool_use` of the
   * assistant message right before.
   */
  addToolResults(results: ToolResultInput[]): UserMessage {
    const blocks = toToolResultBlocks(results, this.#history.pendingToolUseIds());
    const message = this.#add("user", this.#currentTurn("addToolResults"), blocks);
    for (const block of blocks) {
      if (block.compactSummary !== undefined)
        this.#history.summaries.set(block.toolUseId, block.compactSummary);
    }
    return message;
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): void {
    const parsed = parseOrThrow(UsageSchema, usage, "usage");
    this.#history.meter.recorded(parsed, this.#history.messages);
  }

  /**
   * Reports what the API changed in the last request before the model read it (a response's
   * `input_transformations`, e.g. thinking dropped with `prefix_mismatch_behavior:
   * "drop_block"`) as an `input_transformations` event. `appendAnthropicResponse` calls it.
   */
  recordInputTransformations(transformations: readonly JsonObject[]): void {
    const parsed = parseOrThrow(
      z.array(JsonObjectSchema),
      transformations,
      "input_transformations",
    );
    if (parsed.length > 0) this.#emit({ type: "input_transformations", transformations: parsed });
  }

  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(summaries: ReadonlyMap<string, string> | Record<string, string>): void {
    if (!(summaries instanceof Map) && !isPlainObject(summaries)) {
      throw new ValidationError("compact summaries", [
        { path: [], message: "must be a Map or a plain object of tool use id to summary" },
      ]);
    }
    const entries = summaries instanceof Map ? [...summaries] : Object.entries(summaries);
    const parsed = parseOrThrow(
      z.array(z.tuple([z.string().min(1, "must be a non-empty tool use id"), z.string()])),
      entries,
      "compact summaries",
    );
    for (const [toolUseId, summary] of parsed) this.#history.summaries.set(toolUseId, summary);
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
    return this.#start(MaybeCompactOptionsSchema, options, "maybeCompact", (parsed) => {
      if (this.#pendingAuto) return this.#pendingAuto;
      const queued = this.#enqueue(() => this.#runner.run("auto", parsed));
      const clear = () => {
        if (this.#pendingAuto === run) this.#pendingAuto = undefined;
      };
      // Joining ends when the run has released the session, before the hooks run.
      const run = queued.then(
        async (outcome) => {
          clear();
          const report = maybeCompactReport(outcome, this.contextUsed);
          await this.#hooks.after(report.boundaries);
          return report;
        },
        (error: unknown) => {
          clear();
          throw error;
        },
      );
      this.#pendingAuto = run;
      return run;
    });
  }

  /**
   * Compacts now, whatever the thresholds. All or nothing: on failure it rejects with
   * `CompactionError` and the conversation is as it was. Waits for a running compaction first.
   */
  forceCompact(options: ForceCompactOptions = {}): Promise<ForceCompactResult> {
    return this.#start(ForceCompactOptionsSchema, options, "forceCompact", async (parsed) => {
      const before = this.#history.messages;
      const outcome = await this.#enqueue(() => this.#runner.run("manual", parsed));
      await this.#hooks.after(outcome.boundaries);
      return forceCompactResult(
        outcome,
        estimateTokens(before),
        estimateTokens(this.#history.messages),
      );
    });
  }

  /** A JSON-safe snapshot of the conversation and its measure; restore with `fromJSON`. */
  toJSON(): SessionSnapshot {
    const history = this.#history;
    return {
      version: 1,
      sessionId: this.#sessionId,
      contextLimit: this.#contextLimit,
      messages: history.messages.map((message) => ({
        ...message,
        createdAt: message.createdAt.toISOString(),
      })),
      compactSummaries: Object.fromEntries(history.summaries),
      meter: history.meter.state,
      lastTurnNumber: history.lastTurnNumber,
      consecutiveFailures: this.#runner.consecutiveFailures,
    };
  }

  /**
   * Validates a compaction call's options and refuses one made from a `beforeCompact` hook
   * (it would wait for the compaction that waits for the hook); both reject, never throw.
   */
  #start<O, R>(
    schema: z.ZodType<O>,
    options: unknown,
    method: string,
    run: (options: O & CompactionRunOptions) => Promise<R>,
  ): Promise<R> {
    try {
      const parsed = parseOrThrow(schema, options, `${method} options`);
      if (this.#hooks.inHook) {
        throw new CompactionError(
          "busy",
          `${method}() was called while a beforeCompact hook runs: it would wait for the compaction that waits for the hook; call it after the hook returns`,
        );
      }
      return run(parsed as O & CompactionRunOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs `task` after every compaction queued before it. Callers run the `afterCompact` hooks
   * once it has settled, when the session is free again, so a hook may start a compaction.
   */
  #enqueue(task: () => Promise<CompactionRunOutcome>): Promise<CompactionRunOutcome> {
    const run = this.#queue.then(async () => {
      this.#running += 1;
      try {
        return await task();
      } finally {
        this.#running -= 1;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #currentTurn(method: string): TurnId {
    const last = this.#history.last;
    if (last === undefined) {
      throw new ValidationError(method, [
        { path: ["messages"], message: "no turn is open: start one with addUserText first" },
      ]);
    }
    return last.turnId;
  }

  #add<R extends Message["role"]>(
    role: R,
    turnId: TurnId,
    content: ContentBlock[],
  ): Extract<Message, { role: R }> {
    const options = { role, sessionId: this.#sessionId, turnId, content, clock: this.#clock };
    const [message] = this.#push([createMessage(options as never)]);
    return message as Extract<Message, { role: R }>;
  }

  /**
   * Appends validated messages, each text too large for the window clamped to its head and
   * tail (reported in a `content_clamped` event with the original).
   */
  #push(messages: readonly Message[]): Message[] {
    const clamped = messages.map((message) => clampMessage(message, this.#maxBlockTokens));
    const appended = clamped.map((entry) => entry.message);
    markValidated(appended);
    this.#history.push(appended);
    for (const { message, clamped: blocks } of clamped) {
      for (const block of blocks)
        this.#emit({ type: "content_clamped", messageId: message.id, ...block });
    }
    return appended;
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
