import { ValidationError, type ValidationIssue } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { CONTINUATION_NOTE, CONTINUATION_REQUEST } from "../core/preserved-thinking.js";
import { duplicateIdIssues } from "../core/unique-ids.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionArchive } from "../session/archive.js";
import { USER_TURN_OWNER } from "../session/history.js";
import type { AgentSessionOptions } from "../session/options.js";
import type { SessionSnapshot } from "../session/snapshot.js";
import { decodeHead, decodeRecord, type LogRecord, storedDataError } from "./records.js";
import type { StoredRecord, StoredState } from "./session-store.js";

/** What a view needs of the session's options. */
export interface SessionViewOptions {
  sessionId: string;
  contextLimit: number;
  clock?: Clock;
  maxBlockShare?: number;
  keepStaleThinking?: boolean;
  /** Where recalls look (the session's `archive` option). */
  archive?: CompactionArchive | false;
}

/** What a view needs of a session's options. */
export function viewOptions(
  sessionId: string,
  options: Omit<AgentSessionOptions, "sessionId">,
): SessionViewOptions {
  const { contextLimit, clock, maxBlockShare, keepStaleThinking, archive } = options;
  return {
    sessionId,
    contextLimit,
    ...(clock === undefined ? {} : { clock }),
    ...(maxBlockShare === undefined ? {} : { maxBlockShare }),
    ...(keepStaleThinking === undefined ? {} : { keepStaleThinking }),
    ...(archive === undefined ? {} : { archive }),
  };
}

const isThinking = (block: ContentBlock) =>
  block.type === "thinking" || block.type === "redacted_thinking";

/** The message without its thinking blocks (as a compaction removes them); the same one when it has none. */
function withoutThinking(message: Message): Message {
  if (!message.content.some(isThinking)) return message;
  const kept = message.content.filter((block) => !isThinking(block));
  return {
    ...message,
    content: kept.length > 0 ? kept : [{ type: "text", text: "[thinking omitted]" }],
  } as Message;
}

/** The two messages that close a tool exchange whose call lost its thinking; ids derive from `results`. */
function continuation(results: Message): Message[] {
  const base = {
    sessionId: results.sessionId,
    turnId: results.turnId,
    createdAt: results.createdAt,
  };
  return [
    {
      ...base,
      role: "assistant",
      id: `${results.id}:continue`,
      content: [{ type: "text", text: CONTINUATION_NOTE }],
    },
    {
      ...base,
      role: "user",
      id: `${results.id}:continued`,
      content: [{ type: "text", text: CONTINUATION_REQUEST }],
    },
  ];
}

const hasBlock = (message: Message, type: ContentBlock["type"]) =>
  message.content.some((block) => block.type === type);

/**
 * One worker's copy of a stored session: an `AgentSession` rebuilt from the head and the log
 * records after it, in the store's order, and the position it reflects. Every worker replays
 * the same records the same way, so all see one conversation.
 *
 * A message written against an older head than the one it is replayed on (a reply to a
 * request built before another worker's compaction) loses its thinking: it is bound to a
 * prefix that changed. Tool results answering such a call get a short continuation after
 * them, as a compaction gives them (see `keepThinkingValid`).
 */
export class SessionView {
  readonly session: AgentSession;
  readonly #options: SessionViewOptions;
  /** The log position this view reflects. */
  tail: number;
  /** The head version this view is built on. */
  readonly version: number;
  #last: Message | undefined;
  #lastTurnNumber = 0;
  #strippedToolCall: string | undefined;
  readonly #ids = new Set<string>();
  readonly #toolUseIds = new Set<string>();

  private constructor(
    options: SessionViewOptions,
    session: AgentSession,
    state: StoredState,
    stripped: string | undefined,
  ) {
    this.#options = options;
    this.session = session;
    this.version = state.version;
    this.tail = state.through;
    this.#strippedToolCall = stripped;
    this.#track(session.messages);
  }

  /** A view built from a full read (`read(sessionId, 0)`). @throws {ValidationError} on bad stored data. */
  static load(options: SessionViewOptions, state: StoredState): SessionView {
    const { sessionId, contextLimit, clock, maxBlockShare, keepStaleThinking, archive } = options;
    const sessionOptions = {
      contextLimit,
      compactor: false as const,
      ...(archive === undefined ? {} : { archive }),
      ...(clock === undefined ? {} : { clock }),
      ...(maxBlockShare === undefined ? {} : { maxBlockShare }),
      ...(keepStaleThinking === undefined ? {} : { keepStaleThinking }),
    };
    if (state.head === undefined) {
      const session = new AgentSession({ ...sessionOptions, sessionId });
      const view = new SessionView(options, session, state, undefined);
      view.applyRecords(state.records);
      return view;
    }
    const head = decodeHead(sessionId, state.head);
    let session: AgentSession;
    try {
      session = AgentSession.fromJSON(head.snapshot, sessionOptions);
    } catch (error) {
      if (!ValidationError.isInstance(error)) throw error;
      throw storedDataError(sessionId, ["head", "snapshot"], error.issues);
    }
    if (session.sessionId !== sessionId) {
      throw storedDataError(
        sessionId,
        ["head", "snapshot", "sessionId"],
        [{ path: [], message: `is ${JSON.stringify(session.sessionId)}, not this session's id` }],
      );
    }
    const view = new SessionView(options, session, state, head.strippedToolCall);
    view.#lastTurnNumber = Math.max(view.#lastTurnNumber, head.snapshot.lastTurnNumber);
    view.applyRecords(state.records);
    return view;
  }

  /** Replays stored records, which must follow this view's position without a gap. */
  applyRecords(records: readonly StoredRecord[]): void {
    for (const { seq, data } of records) {
      if (seq <= this.tail) continue;
      if (seq !== this.tail + 1) {
        throw storedDataError(
          this.#options.sessionId,
          ["log", this.tail + 1],
          [{ path: [], message: `is missing (the next record read is ${seq})` }],
        );
      }
      this.apply(seq, decodeRecord(this.#options.sessionId, seq, data));
    }
  }

  /** Replays one record (validated) as record `seq`. */
  apply(seq: number, record: LogRecord): void {
    const session = this.session;
    try {
      if (record.kind === "usage") session.recordUsage(record.usage);
      else if (record.kind === "summaries") session.storeCompactSummaries(record.summaries);
      else if (record.kind === "pins") this.#pin(record.messageIds);
      else {
        this.#appendMessages(record.messages, record.headVersion < this.version);
        if (record.pinned !== undefined) this.#pin(record.pinned);
      }
    } catch (error) {
      if (!ValidationError.isInstance(error)) throw error;
      throw storedDataError(this.#options.sessionId, ["log", seq, record.kind], error.issues);
    }
    this.tail = seq;
  }

  #appendMessages(messages: readonly Message[], stale: boolean): void {
    const strip = stale && this.#options.keepStaleThinking !== true;
    const batch: Message[] = [];
    const summaries = new Map<string, string>();
    let last = this.#last;
    // A retried append that did land before: its messages are here already.
    for (const message of messages.filter((entry) => !this.#ids.has(entry.id))) {
      const appended = strip ? withoutThinking(message) : message;
      batch.push(appended);
      if (appended.role === "assistant") {
        const lostThinking = appended !== message && hasBlock(appended, "tool_use");
        this.#strippedToolCall = lostThinking ? appended.id : undefined;
      } else if (hasBlock(appended, "tool_result")) {
        for (const block of appended.content) {
          if (block.type === "tool_result" && block.compactSummary !== undefined)
            summaries.set(block.toolUseId, block.compactSummary);
        }
        if (last?.role === "assistant" && last.id === this.#strippedToolCall) {
          batch.push(...continuation(appended));
          this.#strippedToolCall = undefined;
        }
      }
      last = batch.at(-1);
    }
    if (batch.length === 0) return;
    this.session.append(...batch);
    if (summaries.size > 0) this.session.storeCompactSummaries(summaries);
    this.#track(batch);
  }

  /**
   * Pins what is still here: a pin written while another worker's compaction (computed
   * without it) folded the message finds it gone, and the summary holds it instead.
   */
  #pin(messageIds: readonly string[]): void {
    for (const messageId of messageIds) if (this.#ids.has(messageId)) this.session.pin(messageId);
  }

  #track(messages: readonly Message[]): void {
    for (const message of messages) {
      this.#ids.add(message.id);
      for (const block of message.content)
        if (block.type === "tool_use") this.#toolUseIds.add(block.id);
      const { turnId } = message;
      if (turnId.owner === USER_TURN_OWNER && turnId.number > this.#lastTurnNumber)
        this.#lastTurnNumber = turnId.number;
      this.#last = message;
    }
  }

  /** The id of the conversation's last message. */
  get lastMessageId(): string | undefined {
    return this.#last?.id;
  }

  /** Whether every message id is in the conversation already. */
  hasAll(messages: readonly Message[]): boolean {
    return messages.every((message) => this.#ids.has(message.id));
  }

  /** Issues for message or `tool_use` ids the conversation already holds, or repeated within `messages`. */
  duplicateIssues(messages: readonly Pick<Message, "id" | "content">[]): ValidationIssue[] {
    return duplicateIdIssues(messages, { messageIds: this.#ids, toolUseIds: this.#toolUseIds });
  }

  /**
   * The smallest snapshot from which a session's helpers (`addUserText`, `addAssistant`,
   * `addToolResults`) build the next message as this conversation would: the last message
   * (its turn, its pending tool uses) and the last turn number.
   */
  helperSnapshot(): SessionSnapshot {
    const last = this.#last;
    return {
      version: 1,
      sessionId: this.#options.sessionId,
      contextLimit: this.session.contextLimit,
      messages: last === undefined ? [] : [{ ...last, createdAt: last.createdAt.toISOString() }],
      compactSummaries: {},
      meter: { correction: 0, replyCounted: false },
      lastTurnNumber: this.#lastTurnNumber,
      consecutiveFailures: 0,
    };
  }
}
