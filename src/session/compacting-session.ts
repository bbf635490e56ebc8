import type { ContextOverflowRefusal } from "../core/context-overflow.js";
import type {
  AssistantMessage,
  ContentBlock,
  JsonObject,
  Message,
  UserMessage,
} from "../core/message.js";
import type { CompactionUsage } from "../core/usage.js";
import type { CostSummary } from "../models/cost-accumulator.js";
import type { ArchiveRecord } from "./archive.js";
import type {
  ForceCompactOptions,
  ForceCompactResult,
  MaybeCompactOptions,
  MaybeCompactReport,
} from "./compaction-report.js";
import type { Usage } from "./context-meter.js";
import type { CompactionEventListener } from "./events.js";
import type { SessionSnapshot } from "./snapshot.js";
import type { ToolResultInput } from "./tool-results.js";

/** `T` for a session whose writes apply at once (`"sync"`), a promise of it for one that persists them first. */
export type SessionResult<Mode extends "sync" | "async", T> = Mode extends "sync" ? T : Promise<T>;

/**
 * What every session offers, in memory (`AgentSession`, `CompactingSession<"sync">`) or in a
 * shared store (`StoredSession`, `CompactingSession<"async">`, whose writes resolve once
 * stored). Code written against it takes either.
 */
export interface CompactingSession<Mode extends "sync" | "async"> {
  /** This session's id (stamped on the messages its helpers create). */
  readonly sessionId: string;
  /** The model's context window in tokens. */
  readonly contextLimit: number;
  /** Tokens the next request's messages take: the last reported usage plus an estimate of what came since. */
  readonly contextUsed: number;
  /** The conversation, a read-only view that never changes (see `AgentSession.messages`). */
  readonly messages: readonly Message[];
  /** The compact summaries stored so far, by tool use id. */
  readonly compactSummaries: ReadonlyMap<string, string>;
  /** Whether a compaction is running now. */
  readonly isCompacting: boolean;
  /** What compactions cost (the summarizer's usage, where reported), summed. */
  readonly compactionUsage: Readonly<CompactionUsage>;
  /** What the session cost in dollars (requests, compactions, total); `undefined` without prices. */
  readonly cost: CostSummary | undefined;
  /** Appends messages as they are; none is added if one is bad. */
  append(...messages: Message[]): SessionResult<Mode, void>;
  /** Appends a user message opening a new turn; `pinned` pins it. */
  addUserText(text: string, options?: { pinned?: boolean }): SessionResult<Mode, UserMessage>;
  /** Appends an assistant message to the current turn; `id` names it (refused when in use). */
  addAssistant(
    content: ContentBlock[],
    options?: { id?: string },
  ): SessionResult<Mode, AssistantMessage>;
  /** Appends tool results answering the last assistant message's tool uses. */
  addToolResults(results: ToolResultInput[]): SessionResult<Mode, UserMessage>;
  /** Appends a mid-conversation `role: "system"` message. */
  addSystemMessage(text: string): SessionResult<Mode, Message>;
  /** Pins one of the user's own messages: no compaction changes or removes it. */
  pin(messageId: string): SessionResult<Mode, void>;
  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): SessionResult<Mode, void>;
  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(
    summaries: ReadonlyMap<string, string> | Record<string, string>,
  ): SessionResult<Mode, void>;
  /** Takes a refusal for length that names a window below `contextLimit` as the session's window. */
  recordContextOverflow(refusal: ContextOverflowRefusal): SessionResult<Mode, void>;
  /** Reports a response's `input_transformations` (an event; nothing stored). */
  recordInputTransformations(transformations: readonly JsonObject[]): void;
  /** Reports a response's `context_management.applied_edits` (an event; nothing stored). */
  recordContextEdits(edits: readonly JsonObject[]): void;
  /** Reports a response's `diagnostics.cache_miss_reason` (an event; nothing stored). */
  recordCacheDiagnosis(reason: JsonObject | null): void;
  /** The archived original a placeholder's recall handle names. */
  recall(handle: string): Promise<ArchiveRecord>;
  /** Subscribes to compaction events; returns the unsubscribe function. */
  on(listener: CompactionEventListener): () => void;
  /** Compacts if a threshold is crossed; never rejects for a summarizer failure. */
  maybeCompact(options?: MaybeCompactOptions): Promise<MaybeCompactReport>;
  /** Compacts now, all or nothing; rejects with `CompactionError` on failure. */
  forceCompact(options?: ForceCompactOptions): Promise<ForceCompactResult>;
  /** Asks for a compaction at the next `maybeCompact`, whatever the thresholds. */
  requestCompaction(options?: { instructions?: string }): void;
  /** Whether a compaction was asked for and has not run yet. */
  readonly compactionRequested: boolean;
  /** A JSON-safe snapshot; restore with `AgentSession.fromJSON`. */
  toJSON(): SessionSnapshot;
}
