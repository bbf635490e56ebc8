import { ValidationError } from "../core/errors.js";
import type {
  AssistantMessage,
  ContentBlock,
  JsonObject,
  Message,
  UserMessage,
} from "../core/message.js";
import { newId } from "../core/message-factory.js";
import { AgentSession } from "../session/agent-session.js";
import type { ArchiveRecord } from "../session/archive.js";
import { CompactionHooks } from "../session/compaction-hooks.js";
import type {
  ForceCompactOptions,
  ForceCompactResult,
  MaybeCompactOptions,
} from "../session/compaction-report.js";
import type { Usage } from "../session/context-meter.js";
import type { CompactionEvent, CompactionEventListener } from "../session/events.js";
import { type AgentSessionOptions, sessionCompactors } from "../session/options.js";
import type { SessionSnapshot } from "../session/snapshot.js";
import type { ToolResultInput } from "../session/tool-results.js";
import { CompactionQueue } from "./compaction-queue.js";
import { MessageHelper } from "./message-helper.js";
import {
  assistantRecord,
  messagesRecord,
  pinRecord,
  type RecordBuilder,
  summariesRecord,
  toolResultsRecord,
  usageRecord,
  userTextRecord,
} from "./record-builders.js";
import { decodeRecord, encodeRecord, type LogEntry } from "./records.js";
import {
  type AppendResult,
  assertName,
  type SessionStore,
  type StoredState,
  type StorePosition,
} from "./session-store.js";
import { SessionView, type SessionViewOptions, viewOptions } from "./session-view.js";
import type {
  CompactionBase,
  CompactionHost,
  StoredCompactionReport,
} from "./stored-compaction.js";
import { type StoredSessionOptions, splitOptions } from "./stored-session-options.js";

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
  assertName(sessionId, "session id");
  const session = new StoredSession(store, sessionId, options);
  await session.refresh();
  return session;
}

/**
 * A session kept in a {@link SessionStore} and shared by workers: the methods of
 * `AgentSession`, made async where they write. Each write is persisted before it resolves, as
 * one record appended at the log's tail (after reading what others appended, when they did);
 * `messages` is the conversation as of this worker's last call. Compactions are computed from
 * a version of the history and applied by compare-and-swap (see `maybeCompact`).
 * Open one with {@link openSession}.
 */
export class StoredSession {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #own: { leaseMs: number; maxAttempts: number; workerId: string };
  readonly #options: Omit<AgentSessionOptions, "sessionId">;
  readonly #viewOptions: SessionViewOptions;
  readonly #listeners = new Set<CompactionEventListener>();
  readonly #host: CompactionHost;
  #view: SessionView | undefined;
  #lock: Promise<unknown> = Promise.resolve();
  readonly #compactions: CompactionQueue;
  #failures = 0;
  readonly #helper: MessageHelper;

  /** Use {@link openSession}, which reads the session first. @throws {ValidationError} for bad options. */
  constructor(store: SessionStore, sessionId: string, options: StoredSessionOptions) {
    assertName(sessionId, "session id");
    const { own, session } = splitOptions(options);
    // Validates the session's options as AgentSession does.
    new AgentSession({ ...session, sessionId });
    this.#store = store;
    this.#sessionId = sessionId;
    this.#own = { ...own, workerId: own.workerId ?? newId() };
    const hooks = new CompactionHooks(session.beforeCompact, session.afterCompact, session.logger);
    const before = hooks.scopedBefore;
    this.#options = before === undefined ? session : { ...session, beforeCompact: before };
    this.#viewOptions = viewOptions(sessionId, session);
    this.#helper = new MessageHelper(this.#viewOptions);
    if (session.onEvent) this.#listeners.add(session.onEvent);
    this.#host = this.#compactionHost();
    this.#compactions = new CompactionQueue(this.#host, hooks);
  }

  /** This session's id in the store. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** The model's context window in tokens. */
  get contextLimit(): number {
    return this.#options.contextLimit;
  }

  /** Tokens the next request's messages take (see `AgentSession.contextUsed`). */
  get contextUsed(): number {
    return this.#current.session.contextUsed;
  }

  /** The conversation as of this worker's last call, a frozen snapshot. */
  get messages(): readonly Message[] {
    return this.#current.session.messages;
  }

  /** The compact summaries stored so far, by tool use id. */
  get compactSummaries(): ReadonlyMap<string, string> {
    return this.#current.session.compactSummaries;
  }

  /** The store position this worker's copy reflects: the log's tail and the head's version. */
  get position(): StorePosition {
    const view = this.#current;
    return { tail: view.tail, version: view.version };
  }

  /** Reads what other workers appended or compacted since this worker's last call. */
  refresh(): Promise<void> {
    return this.#exclusive(() => this.#sync());
  }

  /**
   * Appends messages as they are, in one record. A retry of an append whose answer was lost
   * (the same message ids) appends nothing twice.
   */
  append(...messages: Message[]): Promise<void> {
    return this.#write(messagesRecord(messages));
  }

  /** Appends a user message with `text`, opening a new turn; `pinned` pins it (see `pin`). */
  addUserText(text: string, options: { pinned?: boolean } = {}): Promise<UserMessage> {
    return this.#write(userTextRecord(text, options));
  }

  /**
   * Pins one of the user's own messages: no compaction changes or removes it (see
   * `AgentSession.pin`). A pin written while another worker's compaction folds the message
   * comes too late: the summary holds it then.
   */
  pin(messageId: string): Promise<void> {
    return this.#write(pinRecord(messageId));
  }

  /**
   * What a compaction removed or replaced, by the recall handle its placeholder names (see
   * `AgentSession.recall`), from the session's archive: by default the head carries it.
   */
  recall(handle: string): Promise<ArchiveRecord> {
    return this.#exclusive(async () => this.#current.session.recall(handle));
  }

  /** Appends an assistant message to the current turn. */
  addAssistant(content: ContentBlock[]): Promise<AssistantMessage> {
    return this.#write(assistantRecord(content));
  }

  /** Appends tool results as one user message in the current turn (see `AgentSession.addToolResults`). */
  addToolResults(results: ToolResultInput[]): Promise<UserMessage> {
    return this.#write(toolResultsRecord(results));
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): Promise<void> {
    return this.#write(usageRecord(usage));
  }

  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(
    summaries: ReadonlyMap<string, string> | Record<string, string>,
  ): Promise<void> {
    return this.#write(summariesRecord(summaries));
  }

  /** Reports what the API changed in the last request (see `AgentSession.recordInputTransformations`); not stored. */
  recordInputTransformations(transformations: readonly JsonObject[]): void {
    const helper = new AgentSession({ contextLimit: this.contextLimit, compactor: false });
    helper.on((event) => this.#emit(event));
    helper.recordInputTransformations(transformations);
  }

  /** Subscribes to compaction events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Compacts if the context is above a compactor's threshold, as `AgentSession.maybeCompact`
   * does, from the history as read now. Under the session's lease (when another worker holds
   * it, this one does not compact: `discarded: "lease_held"`), applied by compare-and-swap of
   * the head: messages appended meanwhile stay after the compacted prefix; when another worker
   * changed the head first, it is computed again on the new history (`maxAttempts` in all).
   * Never rejects for a summarizer failure; rejects when the store cannot be reached.
   */
  maybeCompact(options: MaybeCompactOptions = {}): Promise<StoredCompactionReport> {
    return this.#compactions.maybeCompact(options);
  }

  /**
   * Compacts now, whatever the thresholds, all or nothing (see `AgentSession.forceCompact`):
   * waits for the lease while another worker compacts (at most `leaseMs`, then rejects with
   * `busy`), and rejects with `aborted` when other workers' compactions won `maxAttempts` times.
   */
  forceCompact(options: ForceCompactOptions = {}): Promise<ForceCompactResult> {
    return this.#compactions.forceCompact(options);
  }

  /** A snapshot of the conversation as this worker has it (`AgentSession.toJSON`). */
  toJSON(): SessionSnapshot {
    return this.#current.session.toJSON();
  }

  get #current(): SessionView {
    if (this.#view === undefined) {
      throw new ValidationError("stored session", [
        { path: [], message: "is not read yet: open it with `await openSession(…)`" },
      ]);
    }
    return this.#view;
  }

  /** Runs `task` after every other read or write of this object. */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(task);
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /** Brings the copy up to the store: the records appended since, or all of it after a new head. */
  async #sync(known?: StoredState): Promise<void> {
    const view = this.#view;
    const state =
      known ?? (await this.#store.read(this.#sessionId, view?.tail ?? 0, view?.version));
    if (view !== undefined && state.version === view.version) {
      view.applyRecords(state.records);
      return;
    }
    const full =
      view === undefined || view.tail <= state.through
        ? state
        : await this.#store.read(this.#sessionId, 0);
    this.#view = SessionView.load(this.#viewOptions, full);
  }

  /**
   * Appends the record `build` makes from the conversation as this worker has it, on a helper
   * session holding its last message (so helpers assign turns and check tool results as
   * `AgentSession` does). On a conflict it reads what changed and builds again. The record
   * carries the head version the caller's content came from, whatever the attempt.
   */
  #write<T>(build: RecordBuilder<T>): Promise<T> {
    return this.#exclusive(async () => {
      const headVersion = this.#current.version;
      let synced = false;
      let conflicts = 0;
      for (;;) {
        const view = this.#current;
        const helper = this.#helper.for(view);
        let built: { entry: LogEntry; result: T } | undefined;
        try {
          built = build(helper, view);
        } catch (error) {
          this.#helper.reset();
          // Refused on this worker's copy: refused for good only when it is the store's latest.
          if (synced || !ValidationError.isInstance(error)) throw error;
          synced = true;
          await this.#sync();
          continue;
        }
        if (built === undefined) return undefined as T;
        const data = encodeRecord({ ...built.entry, headVersion });
        const position = { tail: view.tail, version: view.version };
        let outcome: AppendResult;
        try {
          outcome = await this.#store.append(this.#sessionId, position, data);
        } catch (error) {
          this.#helper.reset();
          throw error;
        }
        if (outcome.appended) {
          view.apply(outcome.seq, decodeRecord(this.#sessionId, outcome.seq, data));
          this.#helper.committed(view, helper);
          for (const event of this.#helper.events) this.#emit(event);
          return built.result;
        }
        this.#helper.reset();
        await this.#sync(outcome.state);
        synced = true;
        conflicts += 1;
        // Writers that lost a race spread out before they try again: fewer lose the next one.
        await pause(Math.random() * Math.min(2 ** conflicts, MAX_BACKOFF_MS));
      }
    });
  }

  #compactionHost(): CompactionHost {
    const self = this;
    return {
      store: this.#store,
      sessionId: this.#sessionId,
      workerId: this.#own.workerId,
      leaseMs: this.#own.leaseMs,
      maxAttempts: this.#own.maxAttempts,
      sessionOptions: this.#options,
      compactors: sessionCompactors({ ...this.#options, sessionId: this.#sessionId }),
      get failures() {
        return self.#failures;
      },
      set failures(value: number) {
        self.#failures = value;
      },
      capture: () =>
        this.#exclusive(async (): Promise<CompactionBase> => {
          await this.#sync();
          const view = this.#current;
          return {
            snapshot: view.session.toJSON(),
            position: { tail: view.tail, version: view.version },
            contextUsed: view.session.contextUsed,
          };
        }),
      apply: (position, data) =>
        this.#exclusive(async () => {
          const applied = await this.#store.swapHead(this.#sessionId, position.version, {
            through: position.tail,
            data,
          });
          if (applied) {
            const state = { ...position, version: position.version + 1, through: position.tail };
            this.#view = SessionView.load(this.#viewOptions, { ...state, head: data, records: [] });
          }
          await this.#sync();
          return applied;
        }),
      contextUsed: () => this.contextUsed,
      emit: (event) => this.#emit(event),
    };
  }

  #emit(event: CompactionEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#options.logger?.warn("agent-compaction: an event listener threw", {
          event: event.type,
          error,
        });
      }
    }
  }
}
