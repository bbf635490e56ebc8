import type { ContextOverflowRefusal } from "../core/context-overflow.js";
import { ValidationError } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, Message, UserMessage } from "../core/message.js";
import { newId } from "../core/message-factory.js";
import { REPORT_EVENTS } from "../core/reported-events.js";
import type { CompactionUsage } from "../core/usage.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { CostSummary } from "../models/cost-accumulator.js";
import type { ArchiveRecord } from "../session/archive.js";
import type { CompactingSession } from "../session/compacting-session.js";
import type {
  ForceCompactOptions,
  ForceCompactResult,
  MaybeCompactOptions,
  MaybeCompactReport,
} from "../session/compaction-report.js";
import type { Usage } from "../session/context-meter.js";
import type { CompactionEventListener, ReportedEvent } from "../session/events.js";
import { SerialQueue } from "../session/serial-queue.js";
import { SessionCore } from "../session/session-core.js";
import type { Intake } from "../session/session-entry.js";
import type { SessionSnapshot } from "../session/snapshot.js";
import type { ToolResultInput } from "../session/tool-results.js";
import { encodeRecord } from "./records.js";
import {
  type AppendResult,
  assertName,
  type SessionStore,
  type StorePosition,
} from "./session-store.js";
import { SharedState } from "./shared-state.js";
import { StoreArchive } from "./store-archive.js";
import { StoreCommit } from "./store-commit.js";
import { StoreReplica } from "./store-replica.js";
import { type StoredSessionOptions, splitOptions } from "./stored-session-options.js";
import { TimedStore } from "./timed-store.js";

/** What `StoredSession.maybeCompact` did (`discarded` says why a compaction did not land). */
export type StoredCompactionReport = MaybeCompactReport;

/** The longest pause, in milliseconds, of a write that lost races to other workers' writes. */
const MAX_BACKOFF_MS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens the session `sessionId` in `store` (an empty one when it is new), read before the
 * promise resolves: another worker that opens the same id sees the same conversation.
 *
 * @throws {ValidationError} for bad options or bad stored data (naming the session and field).
 * @example
 * const session = await openSession(new MemoryStore(), "conversation-42", { contextLimit: 200_000 });
 * await session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const request = session.messages; // build the model request from these
 */
export async function openSession(
  store: SessionStore,
  sessionId: string,
  options: StoredSessionOptions,
): Promise<StoredSession> {
  const session = new StoredSession(store, sessionId, options);
  await session.refresh();
  return session;
}

/**
 * A session kept in a {@link SessionStore} and shared by workers: the same core as
 * `AgentSession`, its writes persisted before they apply. Each write is one record appended
 * at the log's tail by compare-and-swap (after reading what others appended, when they did);
 * every worker replays the records in the store's order through the same apply. Compactions
 * run under the session's lease and land by compare-and-swap of the head; archived originals
 * are stored apart from it. Open one with {@link openSession}.
 */
export class StoredSession implements CompactingSession<"async"> {
  readonly #store: SessionStore;
  readonly #core: SessionCore;
  readonly #commit: StoreCommit;
  readonly #replica: StoreReplica;
  readonly #shared: SharedState;
  /** This object's reads and writes (and a compaction's swap), one at a time. */
  readonly #lock = new SerialQueue();

  /** Use {@link openSession}, which reads the session first. @throws {ValidationError} for bad options. */
  constructor(store: SessionStore, sessionId: string, options: StoredSessionOptions) {
    assertName(sessionId, "session id");
    const { own, session } = splitOptions(options);
    // Every store call of this worker is bounded in time: a hung one cannot hold anything.
    const timed = new TimedStore(store, own.storeTimeoutMs, own.timers);
    store = timed;
    this.#store = store;
    this.#commit = new StoreCommit({
      store: timed,
      sessionId,
      workerId: own.workerId ?? newId(),
      leaseMs: own.leaseMs,
      maxAttempts: own.maxAttempts,
      lock: this.#lock,
    });
    const archive = session.archive ?? new StoreArchive(store);
    this.#core = new SessionCore({ ...session, archive, sessionId }, { commit: this.#commit });
    this.#replica = new StoreReplica(
      store,
      sessionId,
      this.#core,
      session.keepStaleThinking === true,
    );
    this.#shared = new SharedState(store, sessionId, this.#core);
    this.#commit.attach(this.#replica, this.#shared);
  }

  /** This session's id in the store. */
  get sessionId(): string {
    return this.#core.sessionId;
  }

  /** The model's context window in tokens. */
  get contextLimit(): number {
    return this.#core.contextLimit;
  }

  /** Tokens the next request's messages take (see `AgentSession.contextUsed`). */
  get contextUsed(): number {
    return this.#core.history.meter.contextUsed;
  }

  /** The conversation as of this worker's last call, a read-only view (see `AgentSession.messages`). */
  get messages(): readonly Message[] {
    this.#assertRead();
    return this.#core.history.view;
  }

  /** The compact summaries stored so far, by tool use id. */
  get compactSummaries(): ReadonlyMap<string, string> {
    return this.#core.history.summaries;
  }

  /** Whether this worker is compacting now. */
  get isCompacting(): boolean {
    return this.#core.isCompacting;
  }

  /** What this worker's compactions cost, summed. */
  get compactionUsage(): Readonly<CompactionUsage> {
    return this.#core.compactionUsage;
  }

  /** The store position this worker's copy reflects: the log's tail and the head's version. */
  get position(): StorePosition {
    return { tail: this.#replica.tail, version: this.#replica.version };
  }

  /**
   * Reads what other workers appended or compacted since this worker's last call, and what they
   * share beyond the history (the circuit breaker, a window a refusal named).
   */
  refresh(): Promise<void> {
    return this.#commit.read();
  }

  /**
   * Appends messages as they are, in one record. A retry of an append whose answer was lost
   * (the same message ids) appends nothing twice.
   */
  append(...messages: Message[]): Promise<void> {
    return this.#write(() => {
      const { history } = this.#core;
      const stored = messages.every(
        (message) =>
          isPlainObject(message) && typeof message.id === "string" && history.has(message.id),
      );
      if (stored && messages.length > 0) return { entry: undefined, result: undefined, events: [] };
      return this.#core.intake.append(messages);
    });
  }

  /** Appends a user message with `text`, opening a new turn; `pinned` pins it (see `pin`). */
  addUserText(text: string, options?: { pinned?: boolean }): Promise<UserMessage> {
    return this.#write(() => this.#core.intake.addUserText(text, options));
  }

  /**
   * Pins one of the user's own messages (see `AgentSession.pin`). A pin written while another
   * worker's compaction folds the message comes too late: the summary holds it then.
   */
  pin(messageId: string): Promise<void> {
    return this.#write(() => this.#core.intake.pin(messageId));
  }

  /** The archived original a placeholder names, read from the store (see `AgentSession.recall`). */
  recall(handle: string): Promise<ArchiveRecord> {
    return this.#core.recall(handle);
  }

  /** Appends an assistant message to the current turn; `id` names it (refused when in use: a response appended twice). */
  addAssistant(content: ContentBlock[], options?: { id?: string }): Promise<AssistantMessage> {
    return this.#write(() => this.#core.intake.addAssistant(content, options));
  }

  /** Appends tool results as one user message in the current turn (see `AgentSession.addToolResults`). */
  addToolResults(results: ToolResultInput[]): Promise<UserMessage> {
    return this.#write(() => this.#core.intake.addToolResults(results));
  }

  /** Appends a mid-conversation `role: "system"` message to the current turn. */
  addSystemMessage(text: string): Promise<Message> {
    return this.#write(() => this.#core.intake.addSystemMessage(text));
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): Promise<void> {
    return this.#write(() => this.#core.intake.recordUsage(usage));
  }

  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(
    summaries: ReadonlyMap<string, string> | Record<string, string>,
  ): Promise<void> {
    return this.#write(() => this.#core.intake.storeCompactSummaries(summaries));
  }

  /**
   * Takes a provider's refusal for length that names the model's window (see
   * `AgentSession.recordContextOverflow`) and stores it: every worker compacts to it.
   */
  async recordContextOverflow(refusal: ContextOverflowRefusal): Promise<void> {
    if (this.#core.recordContextOverflow(refusal)) await this.#shared.writeWindow();
  }

  /**
   * Hands this worker's observers an event a provider adapter read in a response (see
   * `AgentSession`); not stored.
   */
  [REPORT_EVENTS](event: ReportedEvent): void {
    this.#core.emit(event);
  }

  /** Subscribes to compaction events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void {
    return this.#core.on(listener);
  }

  /**
   * Compacts if a threshold is crossed, as `AgentSession.maybeCompact` does, on the history as
   * read now (one store read when nothing is due). Under the session's lease (another worker
   * holding it: `discarded: "lease_held"`), landed by compare-and-swap of the head: messages
   * appended meanwhile stay after the compacted prefix; when another worker changed the head
   * first, it is computed again on the new history (`maxAttempts` in all, then `discarded:
   * "conflict"`). Never rejects for a summarizer's or the store's failure: a store that fails a
   * read, the lease or the head's swap is a `store_error` in the report (nothing of the
   * compaction stored; the breaker's write too when nothing landed, its count kept for this
   * worker's next write), and when the context is above the window the last resort still trims,
   * in this worker's copy alone when the store does not take it: the request that follows fits,
   * and this worker's next call undoes that trim (the store kept everything) before it reads or
   * writes.
   */
  maybeCompact(options: MaybeCompactOptions = {}): Promise<StoredCompactionReport> {
    return this.#core.maybeCompact(options);
  }

  /**
   * Compacts now, all or nothing (see `AgentSession.forceCompact`): waits for the lease while
   * another worker compacts (at most `leaseMs`, then rejects with `busy`), rejects with
   * `aborted` when other workers' compactions won `maxAttempts` times, and with `store_error`
   * when the store fails it.
   */
  forceCompact(options: ForceCompactOptions = {}): Promise<ForceCompactResult> {
    return this.#core.forceCompact(options);
  }

  /**
   * Asks for a compaction at this worker's next `maybeCompact`, whatever the thresholds (see
   * `AgentSession.requestCompaction`); not stored: the worker that answers the model's call runs it.
   */
  requestCompaction(options: { instructions?: string } = {}): void {
    this.#core.requestCompaction(options);
  }

  /** Whether a compaction was asked for and has not run yet. */
  get compactionRequested(): boolean {
    return this.#core.compactionRequested;
  }

  /** What the session cost so far in dollars, as this worker has it (`AgentSession.cost`). */
  get cost(): CostSummary | undefined {
    return this.#core.cost;
  }

  /** A snapshot of the conversation as this worker has it (`AgentSession.toJSON`). */
  toJSON(): SessionSnapshot {
    this.#assertRead();
    return this.#core.toJSON();
  }

  #assertRead(): void {
    if (!this.#replica.read) {
      throw new ValidationError("stored session", [
        { path: [], message: "is not read yet: open it with `await openSession(…)`" },
      ]);
    }
  }

  /** Runs `task` after every other read or write of this object. */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.#lock.enqueue(task);
  }

  /**
   * Persists the entry `build` makes from the conversation as this worker has it, then applies
   * it. On a conflict it reads what changed and builds again; a refusal on a stale copy is
   * final only once the copy is the store's latest. The record carries the head version the
   * caller's content came from, whatever the attempt.
   */
  #write<T>(build: () => Intake<T>): Promise<T> {
    return this.#exclusive(async () => {
      this.#assertRead();
      // A trim the store did not take is undone first: what is written follows what is stored.
      this.#replica.reconcile();
      const headVersion = this.#replica.version;
      let synced = false;
      for (let conflicts = 0; ; ) {
        let intake: Intake<T>;
        try {
          intake = build();
        } catch (error) {
          if (synced || !ValidationError.isInstance(error)) throw error;
          synced = true;
          await this.#replica.sync();
          continue;
        }
        if (intake.entry === undefined) return this.#core.take(intake);
        const data = encodeRecord({ ...intake.entry, headVersion });
        const outcome: AppendResult = await this.#store.append(this.sessionId, this.position, data);
        if (outcome.appended) {
          // Stored: an archive that fails to keep what it clamped is logged, not thrown (the
          // write landed; the originals are recalled from memory and put again later).
          await this.#core.kept(
            this.#replica.applyRecord(outcome.seq, { ...intake.entry, headVersion }, true),
          );
          return this.#core.take({ ...intake, entry: undefined });
        }
        await this.#replica.sync(outcome.state);
        synced = true;
        conflicts += 1;
        // Writers that lost a race spread out before they try again: fewer lose the next one.
        await pause(Math.random() * Math.min(2 ** conflicts, MAX_BACKOFF_MS));
      }
    });
  }
}
