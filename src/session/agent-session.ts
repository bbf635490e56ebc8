import type { ContextOverflowRefusal } from "../core/context-overflow.js";
import { ValidationError } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, Message, UserMessage } from "../core/message.js";
import { REPORT_EVENTS } from "../core/reported-events.js";
import type { CompactionUsage } from "../core/usage.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { CostSummary } from "../models/cost-accumulator.js";
import type { ArchiveRecord } from "./archive.js";
import type { CompactingSession } from "./compacting-session.js";
import type {
  ForceCompactOptions,
  ForceCompactResult,
  MaybeCompactOptions,
  MaybeCompactReport,
} from "./compaction-report.js";
import type { Usage } from "./context-meter.js";
import type { CompactionEventListener, ReportedEvent } from "./events.js";
import type { AgentSessionOptions } from "./options.js";
import { SessionCore, type SessionCoreSettings } from "./session-core.js";
import { parseSnapshot, type SessionRestoreOptions, type SessionSnapshot } from "./snapshot.js";
import type { ToolResultInput } from "./tool-results.js";

let makeWith: (options: AgentSessionOptions, settings: SessionCoreSettings) => AgentSession;

/**
 * An `AgentSession` with settings the public constructor does not take (a stateless helper's:
 * handles named after their content). Internal: the package does not export it.
 */
export function agentSessionWith(
  options: AgentSessionOptions,
  settings: SessionCoreSettings,
): AgentSession {
  return makeWith(options, settings);
}

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
export class AgentSession implements CompactingSession<"sync"> {
  readonly #core: SessionCore;
  /** The settings of the session being made by {@link agentSessionWith}, for its constructor. */
  static #making: SessionCoreSettings | undefined;

  static {
    makeWith = (options, settings) => {
      AgentSession.#making = settings;
      try {
        return new AgentSession(options);
      } finally {
        AgentSession.#making = undefined;
      }
    };
  }

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AgentSessionOptions) {
    this.#core = new SessionCore(options, AgentSession.#making);
  }

  /** Restores a session from {@link AgentSession.toJSON}'s snapshot; `options` supply what JSON cannot hold. */
  static fromJSON(snapshot: unknown, options: SessionRestoreOptions = {}): AgentSession {
    if (!isPlainObject(options)) {
      throw new ValidationError("fromJSON options", [{ path: [], message: "must be an object" }]);
    }
    const parsed = parseSnapshot(snapshot);
    // Its records are in the archive it was taken with, not in the snapshot.
    if (parsed.archive?.external === true && options.archive === undefined)
      throw new ValidationError("fromJSON options", [
        {
          path: ["archive"],
          message:
            "is required: the snapshot's archive was external (its records are not in the snapshot); pass that archive",
        },
      ]);
    const session = new AgentSession({
      ...options,
      contextLimit: options.contextLimit ?? parsed.contextLimit,
      sessionId: parsed.sessionId,
    });
    session.#core.load(parsed);
    return session;
  }

  /** This session's id (stamped on the messages its helpers create). */
  get sessionId(): string {
    return this.#core.sessionId;
  }

  /** The model's context window in tokens (lowered by a refusal that named a smaller one). */
  get contextLimit(): number {
    return this.#core.contextLimit;
  }

  /**
   * Tokens the next request's messages take: the last reported usage (input + cache creation
   * + cache read + output) plus an estimate of the messages appended since.
   */
  get contextUsed(): number {
    return this.#core.history.meter.contextUsed;
  }

  /**
   * The conversation, an array that never changes, in bounded time however often it is read
   * (a frozen copy up to 2,048 messages, above that a read-only view made in constant time: a
   * proxy, cloned with `structuredClone([...session.messages])`); build each request from it
   * after `maybeCompact()`.
   */
  get messages(): readonly Message[] {
    return this.#core.history.view;
  }

  /** The compact summaries stored so far, by tool use id. */
  get compactSummaries(): ReadonlyMap<string, string> {
    return this.#core.history.summaries;
  }

  /** Whether a compaction is running now. */
  get isCompacting(): boolean {
    return this.#core.isCompacting;
  }

  /** What compactions cost (the summarizer's usage, where the compactor reports it), summed. */
  get compactionUsage(): Readonly<CompactionUsage> {
    return this.#core.compactionUsage;
  }

  /** Appends messages as they are. All are validated first; none is added if one is bad. */
  append(...messages: Message[]): void {
    this.#core.take(this.#core.intake.append(messages));
  }

  /**
   * Appends a user message with `text`, opening a new turn. `pinned`: no compaction ever
   * changes or removes it (see {@link AgentSession.pin}).
   */
  addUserText(text: string, options?: { pinned?: boolean }): UserMessage {
    return this.#core.take(this.#core.intake.addUserText(text, options));
  }

  /**
   * Pins one of the user's own messages (no tool results in it): no compaction changes or
   * removes it, and after a summary it comes back right after the summary.
   * @throws {ValidationError} for an unknown id or a message that cannot be pinned.
   */
  pin(messageId: string): void {
    this.#core.take(this.#core.intake.pin(messageId));
  }

  /**
   * What a compaction removed or replaced, by the recall handle its placeholder names
   * (`[recall r7-3f2a]`): the original tool result, tool input, or messages.
   * @throws {ValidationError} for a handle this session never gave, or with `archive: false`.
   */
  recall(handle: string): Promise<ArchiveRecord> {
    return this.#core.recall(handle);
  }

  /** Appends an assistant message to the current turn; `id` names it (refused when in use: a response appended twice). */
  addAssistant(content: ContentBlock[], options?: { id?: string }): AssistantMessage {
    return this.#core.take(this.#core.intake.addAssistant(content, options));
  }

  /**
   * Appends tool results as one user message in the current turn, and stores each result's
   * `compactSummary` for later compaction. Takes the library's shape (`isError` optional) or
   * the Anthropic SDK's (`tool_use_id`, `is_error`); each must answer a `tool_use` of the
   * assistant message right before.
   */
  addToolResults(results: ToolResultInput[]): UserMessage {
    return this.#core.take(this.#core.intake.addToolResults(results));
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): void {
    this.#core.take(this.#core.intake.recordUsage(usage));
  }

  /**
   * Takes a provider's refusal for length that names the model's window (`contextOverflowOf(error)`;
   * `withOverflowRecovery` does it for you): below `contextLimit`, it becomes the session's
   * window, and a `context_window_warning` (`refused_above_window`) says so. The refused
   * request's size (`requestTokens`), above the measure, becomes it: what the request held that
   * the session never saw (a system prompt, tools) counts from then on.
   * @throws {ValidationError} naming the field for a bad refusal.
   */
  recordContextOverflow(refusal: ContextOverflowRefusal): void {
    this.#core.recordContextOverflow(refusal);
  }

  /**
   * Hands the observers an event a provider adapter read in a response (the Anthropic API's
   * `input_transformations`, `applied_edits`, `cache_miss_reason`: `appendAnthropicResponse`).
   */
  [REPORT_EVENTS](event: ReportedEvent): void {
    this.#core.emit(event);
  }

  /** Appends a mid-conversation `role: "system"` message to the current turn, where you put it. */
  addSystemMessage(text: string): Message {
    return this.#core.take(this.#core.intake.addSystemMessage(text));
  }

  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(summaries: ReadonlyMap<string, string> | Record<string, string>): void {
    this.#core.take(this.#core.intake.storeCompactSummaries(summaries));
  }

  /** Subscribes to compaction events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void {
    return this.#core.on(listener);
  }

  /**
   * Compacts if the context is above a compactor's threshold: the first compactor, then the
   * second judged on what the first left. Call before every model request. Never rejects
   * for a summarizer failure: the report carries it. A call while one runs joins it.
   */
  maybeCompact(options: MaybeCompactOptions = {}): Promise<MaybeCompactReport> {
    return this.#core.maybeCompact(options);
  }

  /**
   * Compacts now, whatever the thresholds. All or nothing: on failure it rejects with
   * `CompactionError` and the conversation is as it was. Waits for a running compaction first.
   */
  forceCompact(options: ForceCompactOptions = {}): Promise<ForceCompactResult> {
    return this.#core.forceCompact(options);
  }

  /**
   * Asks for a compaction at the next `maybeCompact`, whatever the thresholds: every compactor
   * runs, as in `forceCompact`, but a failure is reported, not thrown. For the model's compact
   * tool (a natural boundary: a sub-task done) or the app. `instructions` go to the summarizer.
   * @throws {ValidationError} for bad options.
   */
  requestCompaction(options: { instructions?: string } = {}): void {
    this.#core.requestCompaction(options);
  }

  /** Whether a compaction was asked for and has not run yet. */
  get compactionRequested(): boolean {
    return this.#core.compactionRequested;
  }

  /**
   * What the session cost so far in dollars, from reported usage at `pricing`'s prices (or the
   * preset of `model`): the agent's requests, the compactions' own calls, and both together;
   * `undefined` without prices.
   */
  get cost(): CostSummary | undefined {
    return this.#core.cost;
  }

  /**
   * A JSON-safe snapshot of the conversation, its measure, its pins and its archive (the
   * records too with the default in-memory archive); restore with `fromJSON`.
   */
  toJSON(): SessionSnapshot {
    return this.#core.toJSON();
  }
}
