import { z } from "zod";
import { createCompactor } from "../compactors/create-compactor.js";
import { trimOldest } from "../compactors/overflow-trim.js";
import {
  type CompactionContext,
  type CompactionResult,
  type Compactor,
  emptyCompactionResult,
  isAsyncCompactor,
  isCompactionResultEmpty,
} from "../core/compactor.js";
import { CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type {
  AssistantMessage,
  ContentBlock,
  Message,
  ToolResultBlock,
  TurnId,
  UserMessage,
} from "../core/message.js";
import { type Clock, createMessage, newId, systemClock } from "../core/message-factory.js";
import { isPlainObject } from "../core/plain-object.js";
import { ContentBlockSchema, MessageSchema, ToolResultBlockSchema } from "../core/schemas.js";
import { estimateTokens } from "../core/tokens.js";
import { ContextMeter, type Usage, UsageSchema } from "./context-meter.js";
import type {
  CompactionEvent,
  CompactionEventListener,
  CompactionStage,
  CompactionTrigger,
  Logger,
} from "./events.js";
import type {
  AfterCompactHook,
  BeforeCompactDecision,
  BeforeCompactHook,
  CompactionBoundary,
} from "./hooks.js";
import { type AgentSessionOptions, AgentSessionOptionsSchema } from "./options.js";
import { parseSnapshot, type SessionSnapshot, type SessionSnapshotDeps } from "./snapshot.js";

/** What `maybeCompact` did. */
export interface MaybeCompactReport {
  /** Whether the conversation changed. */
  compacted: boolean;
  /** The context measure before and after. */
  contextUsedBefore: number;
  contextUsedAfter: number;
  /** Each compactor's result, present when it ran. */
  results: { compactor?: CompactionResult; llmCompactor?: CompactionResult };
  /** The summariser failure, when there was one; the conversation is as the failed stage found it. */
  error?: CompactionError;
  /** A boundary record for each stage that changed the conversation, in order. */
  boundaries: CompactionBoundary[];
  /** The messages `trimOnOverflow` removed, when it had to. */
  trimmed?: Message[];
}

/** Options of `forceCompact`. */
export interface ForceCompactOptions {
  /** Extra instructions for the summariser, for this compaction only. */
  instructions?: string;
  /** Cancels the compaction (it rejects with code `aborted`). */
  signal?: AbortSignal;
}

/** What `forceCompact` did: the combined result and a boundary record per stage that changed something. */
export interface ForceCompactResult extends CompactionResult {
  boundaries: CompactionBoundary[];
}

interface Stage {
  name: CompactionStage;
  compactor: Compactor;
}

const USER_TURN_OWNER = "u";

/**
 * A conversation with its context measure and compaction: call `maybeCompact()` before
 * every model request and build the request from `messages` afterwards.
 *
 * @example
 * const session = new AgentSession({ contextLimit: 200_000 });
 * session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const response = await callModel(session.messages);
 */
export class AgentSession {
  readonly #sessionId: string;
  readonly #contextLimit: number;
  readonly #stages: Stage[];
  readonly #clock: Clock;
  readonly #logger: Logger | undefined;
  readonly #beforeCompact: BeforeCompactHook | undefined;
  readonly #afterCompact: AfterCompactHook | undefined;
  readonly #maxConsecutiveFailures: number;
  readonly #trimTarget: number | undefined;
  readonly #listeners = new Set<CompactionEventListener>();
  readonly #meter = new ContextMeter();
  #messages: Message[] = [];
  #view: readonly Message[] | undefined;
  #ids = new Set<string>();
  #toolUseIds = new Set<string>();
  #summaries = new Map<string, string>();
  #lastTurnNumber = 0;
  #generation = 0;
  #consecutiveFailures = 0;
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
    this.#beforeCompact = parsed.beforeCompact;
    this.#afterCompact = parsed.afterCompact;
    this.#maxConsecutiveFailures = parsed.maxConsecutiveFailures ?? 3;
    const trim = parsed.trimOnOverflow ?? false;
    this.#trimTarget =
      trim === false ? undefined : trim === true ? 0.5 : (trim.targetUtilization ?? 0.5);
    this.#stages = [];
    const compactor = resolveCompactor(options.compactor, parsed.llmClient);
    if (compactor) this.#stages.push({ name: "compactor", compactor });
    if (parsed.llmCompactor)
      this.#stages.push({ name: "llmCompactor", compactor: parsed.llmCompactor });
    if (parsed.onEvent) this.#listeners.add(parsed.onEvent);
  }

  /** Restores a session from {@link AgentSession.toJSON}'s snapshot; `deps` supplies what JSON cannot hold. */
  static fromJSON(snapshot: unknown, deps: SessionSnapshotDeps = {}): AgentSession {
    if (!isPlainObject(deps)) {
      throw new ValidationError("fromJSON deps", [{ path: [], message: "must be an object" }]);
    }
    const parsed = parseSnapshot(snapshot);
    const duplicates = duplicateToolUseIssues(parsed.messages, new Set(), ["messages"]);
    if (duplicates.length > 0) throw new ValidationError("session snapshot", duplicates);
    const session = new AgentSession({
      ...deps,
      contextLimit: deps.contextLimit ?? parsed.contextLimit,
      sessionId: parsed.sessionId,
    });
    session.#replace(parsed.messages);
    session.#meter.restore(parsed.meter, parsed.messages);
    session.#summaries = new Map(Object.entries(parsed.compactSummaries));
    session.#lastTurnNumber = Math.max(parsed.lastTurnNumber, session.#lastTurnNumber);
    session.#consecutiveFailures = parsed.consecutiveFailures;
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
    return this.#meter.contextUsed;
  }

  /** The conversation, read-only; build each request from it after `maybeCompact()`. */
  get messages(): readonly Message[] {
    // A frozen snapshot, made once per change: holding it is safe, pushing to it throws.
    this.#view ??= Object.freeze(this.#messages.slice());
    return this.#view;
  }

  /** The compact summaries stored so far, by tool use id. */
  get compactSummaries(): ReadonlyMap<string, string> {
    return this.#summaries;
  }

  /** Whether a compaction is running now. */
  get isCompacting(): boolean {
    return this.#running > 0;
  }

  /** Appends messages as they are. All are validated first; none is added if one is bad. */
  append(...messages: Message[]): void {
    const parsed = parseOrThrow(z.array(MessageSchema), messages, "messages");
    const ids = new Set<string>();
    const issues = parsed.flatMap((message, index) => {
      const duplicate = this.#ids.has(message.id) || ids.has(message.id);
      ids.add(message.id);
      return duplicate
        ? [{ path: [index, "id"], message: `duplicate message id "${message.id}"` }]
        : [];
    });
    issues.push(...duplicateToolUseIssues(parsed, this.#toolUseIds, []));
    if (issues.length > 0) throw new ValidationError("messages", issues);
    this.#push(messages);
  }

  /** Appends a user message with `text`, opening a new turn. */
  addUserText(text: string): UserMessage {
    parseOrThrow(z.string().min(1, "must be a non-empty string"), text, "text");
    const turnId = { owner: USER_TURN_OWNER, number: this.#lastTurnNumber + 1 };
    const message = this.#create("user", turnId, [{ type: "text", text }]);
    this.#push([message]);
    return message;
  }

  /** Appends an assistant message to the current turn. */
  addAssistant(content: ContentBlock[]): AssistantMessage {
    const blocks = parseOrThrow(
      z.array(ContentBlockSchema).min(1, "must hold at least one block"),
      content,
      "assistant content",
    );
    const duplicates = duplicateToolUseIssues([{ content: blocks }], this.#toolUseIds, []).map(
      (issue) => ({ ...issue, path: issue.path.slice(2) }),
    );
    if (duplicates.length > 0) throw new ValidationError("assistant content", duplicates);
    const message = this.#create("assistant", this.#currentTurn("addAssistant"), blocks);
    this.#push([message]);
    return message;
  }

  /**
   * Appends tool results as one user message in the current turn, and stores each result's
   * `compactSummary` for later compaction.
   */
  addToolResults(results: ToolResultBlock[]): UserMessage {
    const blocks = parseOrThrow(
      z.array(ToolResultBlockSchema).min(1, "must hold at least one tool result"),
      results,
      "tool results",
    );
    const message = this.#create("user", this.#currentTurn("addToolResults"), blocks);
    this.#push([message]);
    for (const block of blocks) {
      if (block.compactSummary !== undefined)
        this.#summaries.set(block.toolUseId, block.compactSummary);
    }
    return message;
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): void {
    const parsed = parseOrThrow(UsageSchema, usage, "usage");
    this.#meter.recorded(parsed, this.#messages);
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
    for (const [toolUseId, summary] of parsed) this.#summaries.set(toolUseId, summary);
  }

  /** Subscribes to compaction events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Compacts if the context is above a compactor's threshold: the first compactor, then the
   * second judged on what the first left. Call before every model request. Never rejects
   * for a summariser failure: the report carries it. A call while one runs joins it.
   */
  maybeCompact(options: { signal?: AbortSignal } = {}): Promise<MaybeCompactReport> {
    // Bad options reject like every other failure of an async method, rather than throw.
    try {
      parseOrThrow(MAYBE_COMPACT_OPTIONS_SCHEMA, options, "maybeCompact options");
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#pendingAuto) return this.#pendingAuto;
    const run = this.#enqueue(() => this.#runAuto(options.signal));
    this.#pendingAuto = run;
    const clear = () => {
      if (this.#pendingAuto === run) this.#pendingAuto = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /**
   * Compacts now, whatever the threshold. All or nothing: on failure it rejects with
   * `CompactionError` and the conversation is as it was. Waits for a running compaction first.
   */
  forceCompact(options: ForceCompactOptions = {}): Promise<ForceCompactResult> {
    let parsed: ForceCompactOptions;
    try {
      parsed = parseOrThrow(FORCE_COMPACT_OPTIONS_SCHEMA, options, "forceCompact options");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(() => this.#runManual(parsed));
  }

  /** A JSON-safe snapshot of the conversation and its measure; restore with `fromJSON`. */
  toJSON(): SessionSnapshot {
    return {
      version: 1,
      sessionId: this.#sessionId,
      contextLimit: this.#contextLimit,
      messages: this.#messages.map((message) => ({
        ...message,
        createdAt: message.createdAt.toISOString(),
      })),
      compactSummaries: Object.fromEntries(this.#summaries),
      meter: this.#meter.state,
      lastTurnNumber: this.#lastTurnNumber,
      consecutiveFailures: this.#consecutiveFailures,
    };
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
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

  async #runAuto(signal: AbortSignal | undefined): Promise<MaybeCompactReport> {
    const contextUsedBefore = this.contextUsed;
    const report: MaybeCompactReport = {
      compacted: false,
      contextUsedBefore,
      contextUsedAfter: contextUsedBefore,
      results: {},
      boundaries: [],
    };
    for (const stage of this.#stages) {
      if (!stage.compactor.shouldCompact(this.contextUsed, this.#contextLimit)) continue;
      const summarises = isAsyncCompactor(stage.compactor);
      if (summarises && this.#consecutiveFailures >= this.#maxConsecutiveFailures) {
        this.#emit({
          type: "compaction_skipped",
          trigger: "auto",
          stage: stage.name,
          reason: "circuit_open",
        });
        continue;
      }
      const decision = await this.#askBeforeCompact(stage, "auto", undefined);
      if (decision.veto === true) {
        this.#emit({
          type: "compaction_skipped",
          trigger: "auto",
          stage: stage.name,
          reason: "vetoed",
        });
        continue;
      }
      try {
        const { result, boundary } = await this.#runStage(stage, "auto", {
          ...(signal ? { signal } : {}),
          ...(decision.instructions === undefined ? {} : { instructions: decision.instructions }),
        });
        report.results[stage.name] = result;
        if (boundary !== undefined) report.boundaries.push(boundary);
        if (!isCompactionResultEmpty(result)) report.compacted = true;
        if (summarises) this.#consecutiveFailures = 0;
      } catch (error) {
        const failure = asCompactionError(error);
        // A caller's abort says nothing about the summariser: it does not trip the breaker.
        if (summarises && failure.code !== "aborted") this.#consecutiveFailures += 1;
        this.#emit({
          type: "compaction_failed",
          trigger: "auto",
          stage: stage.name,
          error: failure,
          consecutiveFailures: this.#consecutiveFailures,
        });
        report.error = failure;
        break;
      }
    }
    const trimmed = this.#trimOnOverflow();
    if (trimmed !== undefined) {
      report.trimmed = trimmed;
      report.compacted = true;
    }
    report.contextUsedAfter = this.contextUsed;
    return report;
  }

  /** Removes the oldest messages when the context is still above the window (opt-in). */
  #trimOnOverflow(): Message[] | undefined {
    if (this.#trimTarget === undefined || this.contextUsed <= this.#contextLimit) return undefined;
    const contextUsedBefore = this.contextUsed;
    // What the measure counts beyond the messages (system prompt, tools) stays.
    const overhead = Math.max(0, contextUsedBefore - this.#meter.estimate);
    const budget = Math.floor(this.#trimTarget * this.#contextLimit) - overhead;
    const output = trimOldest(this.#messages, budget, { clock: this.#clock });
    if (output === undefined) return undefined;
    this.#replace(output.conversation);
    this.#emit({
      type: "context_trimmed",
      trigger: "auto",
      removed: output.removed,
      contextUsedBefore,
      contextUsedAfter: this.contextUsed,
    });
    return output.removed;
  }

  async #runManual(options: ForceCompactOptions): Promise<ForceCompactResult> {
    const snapshot = this.#messages.slice();
    const generation = this.#generation;
    const contextUsedBefore = this.contextUsed;
    let conversation: Message[] = snapshot;
    let total = emptyCompactionResult();
    const applied: { stage: Stage; result: CompactionResult; before: number; after: number }[] = [];
    for (const stage of this.#stages) {
      const decision = await this.#askBeforeCompact(stage, "manual", options.instructions);
      if (decision.veto === true) {
        this.#emit({
          type: "compaction_skipped",
          trigger: "manual",
          stage: stage.name,
          reason: "vetoed",
        });
        continue;
      }
      this.#emit({
        type: "compaction_start",
        trigger: "manual",
        stage: stage.name,
        contextUsed: contextUsedBefore,
        contextLimit: this.#contextLimit,
      });
      try {
        const before = estimateTokens(conversation);
        const output = await this.#compactWith(stage.compactor, conversation, "manual", {
          ...options,
          ...(decision.instructions === undefined ? {} : { instructions: decision.instructions }),
        });
        conversation = output.conversation;
        applied.push({ stage, result: output.result, before, after: estimateTokens(conversation) });
        total = addResults(total, output.result);
      } catch (error) {
        const failure = asCompactionError(error);
        this.#emit({
          type: "compaction_failed",
          trigger: "manual",
          stage: stage.name,
          error: failure,
          consecutiveFailures: this.#consecutiveFailures,
        });
        throw failure;
      }
    }
    if (conversation !== snapshot) this.#splice(snapshot.length, generation, conversation);
    this.#consecutiveFailures = 0;
    const boundaries: CompactionBoundary[] = [];
    for (const { stage, result, before, after } of applied) {
      const boundary = isCompactionResultEmpty(result)
        ? undefined
        : boundaryOf(stage, "manual", result, before, after);
      this.#emit({
        type: "compaction_end",
        trigger: "manual",
        stage: stage.name,
        result,
        tokensBefore: before,
        tokensAfter: after,
        contextUsedBefore,
        contextUsedAfter: this.contextUsed,
        ...(boundary === undefined ? {} : { boundary }),
      });
      if (boundary !== undefined) {
        boundaries.push(boundary);
        await this.#notifyAfterCompact(boundary);
      }
    }
    return {
      ...total,
      tokensBefore: estimateTokens(snapshot),
      tokensAfter: estimateTokens(conversation),
      boundaries,
    };
  }

  async #runStage(
    stage: Stage,
    trigger: CompactionTrigger,
    options: ForceCompactOptions,
  ): Promise<{ result: CompactionResult; boundary: CompactionBoundary | undefined }> {
    const snapshot = this.#messages.slice();
    const generation = this.#generation;
    const contextUsedBefore = this.contextUsed;
    this.#emit({
      type: "compaction_start",
      trigger,
      stage: stage.name,
      contextUsed: contextUsedBefore,
      contextLimit: this.#contextLimit,
    });
    const output = await this.#compactWith(stage.compactor, snapshot, trigger, options);
    const changed = !isCompactionResultEmpty(output.result);
    if (changed) this.#splice(snapshot.length, generation, output.conversation);
    const tokensBefore = output.result.tokensBefore ?? estimateTokens(snapshot);
    const tokensAfter = output.result.tokensAfter ?? estimateTokens(output.conversation);
    const boundary = changed
      ? boundaryOf(stage, trigger, output.result, tokensBefore, tokensAfter)
      : undefined;
    this.#emit({
      type: "compaction_end",
      trigger,
      stage: stage.name,
      result: output.result,
      tokensBefore,
      tokensAfter,
      contextUsedBefore,
      contextUsedAfter: this.contextUsed,
      ...(boundary === undefined ? {} : { boundary }),
    });
    if (boundary !== undefined) await this.#notifyAfterCompact(boundary);
    return { result: output.result, boundary };
  }

  /** Asks the `beforeCompact` hook; a hook that throws is logged and ignored. */
  async #askBeforeCompact(
    stage: Stage,
    trigger: CompactionTrigger,
    instructions: string | undefined,
  ): Promise<BeforeCompactDecision> {
    if (this.#beforeCompact === undefined)
      return instructions === undefined ? {} : { instructions };
    let decision: BeforeCompactDecision | undefined;
    try {
      decision = await this.#beforeCompact({
        trigger,
        stage: stage.name,
        strategy: strategyOf(stage.compactor),
        contextUsed: this.contextUsed,
        contextLimit: this.#contextLimit,
        messages: this.messages,
        ...(instructions === undefined ? {} : { instructions }),
      });
    } catch (error) {
      this.#logger?.warn("agent-compaction: the beforeCompact hook threw", { error });
    }
    const added =
      typeof decision?.instructions === "string" && decision.instructions.trim() !== ""
        ? decision.instructions
        : undefined;
    const combined =
      instructions === undefined
        ? added
        : added === undefined
          ? instructions
          : `${instructions}\n\n${added}`;
    return {
      ...(decision?.veto === true ? { veto: true } : {}),
      ...(combined === undefined ? {} : { instructions: combined }),
    };
  }

  async #notifyAfterCompact(boundary: CompactionBoundary): Promise<void> {
    if (this.#afterCompact === undefined) return;
    try {
      await this.#afterCompact(boundary);
    } catch (error) {
      this.#logger?.warn("agent-compaction: the afterCompact hook threw", { error });
    }
  }

  #compactWith(
    compactor: Compactor,
    conversation: readonly Message[],
    trigger: CompactionTrigger,
    options: ForceCompactOptions,
  ) {
    const summaries = new Map(this.#summaries);
    // What the measure counts beyond the messages (system prompt, tools) applies to any version of them.
    const overhead = Math.max(0, this.contextUsed - this.#meter.estimate);
    const context: CompactionContext = {
      contextLimit: this.#contextLimit,
      contextUsed: overhead + estimateTokens(conversation),
      trigger,
    };
    if (isAsyncCompactor(compactor))
      return compactor.compactAsync(conversation, summaries, { ...options, ...context });
    return Promise.resolve(compactor.compact(conversation, summaries, context));
  }

  /** Replaces the first `length` messages by `compacted`, keeping everything appended since. */
  #splice(length: number, generation: number, compacted: readonly Message[]): void {
    if (generation !== this.#generation) {
      throw new CompactionError("aborted", "the conversation was replaced while compacting");
    }
    this.#replace([...compacted, ...this.#messages.slice(length)]);
  }

  #replace(messages: Message[]): void {
    const previous = this.#messages;
    this.#messages = messages;
    this.#view = undefined;
    this.#generation += 1;
    this.#ids = new Set(messages.map((message) => message.id));
    this.#toolUseIds = new Set(toolUseIdsOf(messages));
    this.#lastTurnNumber = Math.max(this.#lastTurnNumber, maxUserTurnNumber(messages));
    // Summaries of tool results that left the conversation are of no further use; summaries
    // stored ahead of their result (not yet appended) stay.
    const kept = toolResultIds(messages);
    for (const toolUseId of toolResultIds(previous)) {
      if (!kept.has(toolUseId)) this.#summaries.delete(toolUseId);
    }
    this.#meter.replaced(messages);
  }

  #push(messages: readonly Message[]): void {
    this.#view = undefined;
    for (const message of messages) {
      this.#messages.push(message);
      this.#ids.add(message.id);
    }
    for (const id of toolUseIdsOf(messages)) this.#toolUseIds.add(id);
    this.#lastTurnNumber = Math.max(this.#lastTurnNumber, maxUserTurnNumber(messages));
    this.#meter.added(messages);
  }

  #currentTurn(method: string): TurnId {
    const last = this.#messages.at(-1);
    if (last === undefined) {
      throw new ValidationError(method, [
        { path: ["messages"], message: "no turn is open: start one with addUserText first" },
      ]);
    }
    return last.turnId;
  }

  #create<R extends Message["role"]>(
    role: R,
    turnId: TurnId,
    content: ContentBlock[],
  ): Extract<Message, { role: R }> {
    const options = { role, sessionId: this.#sessionId, turnId, content, clock: this.#clock };
    return createMessage(options as never) as Extract<Message, { role: R }>;
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

function resolveCompactor(
  option: AgentSessionOptions["compactor"],
  llmClient: AgentSessionOptions["llmClient"],
): Compactor | undefined {
  if (option === false) return undefined;
  if (option === undefined) return createCompactor({ type: "threshold" });
  if ("compact" in option) return option;
  return createCompactor(option, llmClient);
}

function toolResultIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === "tool_result") ids.add(block.toolUseId);
  }
  return ids;
}

const MAYBE_COMPACT_OPTIONS_SCHEMA = z.strictObject(
  {
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, "must be an AbortSignal")
      .exactOptional(),
  },
  { error: "must be an object" },
);

const FORCE_COMPACT_OPTIONS_SCHEMA = z.object(
  {
    instructions: z.string({ error: "must be a string" }).exactOptional(),
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, "must be an AbortSignal")
      .exactOptional(),
  },
  { error: "must be an object" },
);

function toolUseIdsOf(messages: readonly Pick<Message, "content">[]): string[] {
  const ids: string[] = [];
  for (const message of messages)
    for (const block of message.content) if (block.type === "tool_use") ids.push(block.id);
  return ids;
}

/** Issues for tool use ids seen before (in `known`) or twice in `messages` (the API refuses them). */
function duplicateToolUseIssues(
  messages: readonly Pick<Message, "content">[],
  known: ReadonlySet<string>,
  prefix: (string | number)[],
): { path: (string | number)[]; message: string }[] {
  const seen = new Set<string>();
  const issues: { path: (string | number)[]; message: string }[] = [];
  messages.forEach((message, index) => {
    message.content.forEach((block, blockIndex) => {
      if (block.type !== "tool_use") return;
      if (known.has(block.id) || seen.has(block.id)) {
        issues.push({
          path: [...prefix, index, "content", blockIndex, "id"],
          message: `duplicate tool_use id "${block.id}" (\`tool_use\` ids must be unique)`,
        });
      }
      seen.add(block.id);
    });
  });
  return issues;
}

function maxUserTurnNumber(messages: readonly Message[]): number {
  let max = 0;
  for (const message of messages) {
    if (message.turnId.owner === USER_TURN_OWNER && message.turnId.number > max)
      max = message.turnId.number;
  }
  return max;
}

function asCompactionError(error: unknown): CompactionError {
  if (CompactionError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CompactionError("llm_error", `compaction failed: ${message}`, { cause: error });
}

function addResults(a: CompactionResult, b: CompactionResult): CompactionResult {
  return {
    toolResultsSummarized: a.toolResultsSummarized + b.toolResultsSummarized,
    toolResultsRedacted: a.toolResultsRedacted + b.toolResultsRedacted,
    turnsCompacted: a.turnsCompacted + b.turnsCompacted,
    ...((a.toolInputsCleared ?? 0) + (b.toolInputsCleared ?? 0) === 0
      ? {}
      : { toolInputsCleared: (a.toolInputsCleared ?? 0) + (b.toolInputsCleared ?? 0) }),
  };
}

/** A compactor's strategy name: its `strategy` property, else `custom`. */
function strategyOf(compactor: Compactor): string {
  const strategy = (compactor as { strategy?: unknown }).strategy;
  return typeof strategy === "string" && strategy !== "" ? strategy : "custom";
}

function boundaryOf(
  stage: Stage,
  trigger: CompactionTrigger,
  result: CompactionResult,
  tokensBefore: number,
  tokensAfter: number,
): CompactionBoundary {
  return {
    trigger,
    strategy: strategyOf(stage.compactor),
    stage: stage.name,
    tokensBefore,
    tokensAfter,
    turnsCompacted: result.turnsCompacted,
    toolResultsCompacted: result.toolResultsSummarized + result.toolResultsRedacted,
    toolInputsCleared: result.toolInputsCleared ?? 0,
  };
}
