import * as z from "zod/mini";
import { parseOrThrow, type ValidationIssue } from "../core/errors.js";
import { exchangeIssues } from "../core/exchanges.js";
import type { Message } from "../core/message.js";
import {
  ISO_DATE_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  NON_NEGATIVE_INT_SCHEMA,
  POSITIVE_INT_SCHEMA,
  recordSchema,
  stringIssue,
  TOKENS_SCHEMA,
} from "../core/option-schemas.js";
import {
  JsonObjectSchema,
  SerializedMessageSchema,
  ToolResultBlockSchema,
} from "../core/schemas.js";
import { freezeMessages } from "../internal/frozen.js";
import { RECALL_HANDLE_PATTERN } from "../internal/recall-mark.js";
import { duplicateIdIssues } from "../internal/unique-ids.js";
import type { ArchiveRecord } from "./archive.js";
import { REQUEST_COMPACTION_SCHEMA } from "./compaction-calls.js";
import { type ContextMeterState, MAX_TOKEN_RATIO } from "./context-meter.js";
import type { AgentSessionOptions } from "./options.js";

/** A message as stored in a snapshot: `createdAt` is an ISO 8601 string. */
export type SerializedMessage = Omit<Message, "createdAt"> & { createdAt: string };

/** A session as JSON: what `AgentSession.toJSON` returns and `AgentSession.fromJSON` takes. */
export interface SessionSnapshot {
  version: 1;
  sessionId: string;
  contextLimit: number;
  messages: SerializedMessage[];
  compactSummaries: Record<string, string>;
  meter: ContextMeterState;
  lastTurnNumber: number;
  /** Automatic summaries failed in a row (the circuit breaker). */
  consecutiveFailures: number;
  /**
   * When the circuit breaker opened (ISO 8601), while it is open or half-open: a restored
   * session keeps it open for what is left of `circuitCooldownMs`; without it, half-open.
   */
  circuitOpenedAt?: string;
  /** Ids of the pinned messages. */
  pinned?: string[];
  /**
   * The archive: the next recall handle's number, and, for the default in-memory archive, its
   * records (messages with ISO dates). A session with an archive of its own (a shared store)
   * carries only `next` (`external: true`): restore it with the same archive.
   */
  archive?: { next: number; external?: true; records?: unknown[] };
  /**
   * A compaction asked for (`requestCompaction`, the model's compact tool) that has not run
   * yet, with its instructions: the restored session runs it at its next `maybeCompact`.
   */
  compactionRequested?: { instructions?: string };
}

/** Options of `AgentSession.fromJSON`: what JSON cannot hold (compactors, listeners, hooks). */
export type SessionRestoreOptions = Omit<AgentSessionOptions, "sessionId" | "contextLimit"> & {
  /** Overrides the snapshot's context limit (e.g. a model with a larger window). @default the snapshot's */
  contextLimit?: number;
};

const SerializedRecordBase = {
  handle: z.string().check(z.regex(RECALL_HANDLE_PATTERN, "must be a recall handle")),
};

/** An archive record in a snapshot; messages' dates as ISO strings, restored to dates. */
export const ArchiveRecordSchema: z.ZodMiniType<ArchiveRecord, unknown> = z.discriminatedUnion(
  "kind",
  [
    z.object({
      ...SerializedRecordBase,
      kind: z.literal("tool_result"),
      toolUseId: z.string(),
      original: ToolResultBlockSchema,
    }),
    z.object({
      ...SerializedRecordBase,
      kind: z.literal("tool_input"),
      toolUseId: z.string(),
      original: JsonObjectSchema,
    }),
    z.object({
      ...SerializedRecordBase,
      kind: z.literal("messages"),
      original: z.array(SerializedMessageSchema),
    }),
  ],
);

const count = NON_NEGATIVE_INT_SCHEMA;
const CALIBRATION_SCHEMA = z.object({ estimate: TOKENS_SCHEMA, tokens: TOKENS_SCHEMA });

/** A validated {@link SessionSnapshot}: its dates restored, its archive records parsed. */
export interface ParsedSnapshot
  extends Omit<SessionSnapshot, "messages" | "circuitOpenedAt" | "archive"> {
  messages: Message[];
  circuitOpenedAt?: Date;
  archive?: { next: number; external?: true; records?: ArchiveRecord[] };
}

/** Schema of a {@link SessionSnapshot}, dates restored. */
export const SessionSnapshotSchema: z.ZodMiniType<ParsedSnapshot, unknown> = z
  .object({
    version: z.literal(1, { error: "must be 1 (the only snapshot version)" }),
    sessionId: NON_EMPTY_STRING_SCHEMA,
    contextLimit: POSITIVE_INT_SCHEMA,
    messages: z.array(SerializedMessageSchema),
    compactSummaries: recordSchema<string>(stringIssue),
    meter: z.object({
      correction: z.number().check(z.refine(Number.isFinite, "must be a finite number")),
      replyCounted: z.boolean(),
      ratio: z.exactOptional(
        z.object({
          value: z
            .number()
            .check(
              z.refine(
                (value) => value >= 1 && value <= MAX_TOKEN_RATIO,
                `must be a number from 1 to ${MAX_TOKEN_RATIO}`,
              ),
            ),
          from: z.exactOptional(CALIBRATION_SCHEMA),
          least: z.exactOptional(CALIBRATION_SCHEMA),
        }),
      ),
    }) satisfies z.ZodMiniType<ContextMeterState>,
    lastTurnNumber: count,
    consecutiveFailures: count,
    circuitOpenedAt: z.exactOptional(ISO_DATE_SCHEMA),
    pinned: z.exactOptional(z.array(z.string())),
    archive: z.exactOptional(
      z.object({
        next: POSITIVE_INT_SCHEMA,
        external: z.exactOptional(z.literal(true)),
        records: z.exactOptional(z.array(ArchiveRecordSchema)),
      }),
    ),
    compactionRequested: z.exactOptional(REQUEST_COMPACTION_SCHEMA),
  })
  .check(
    z.superRefine((snapshot, context) => {
      for (const issue of conversationIssues(snapshot.messages))
        context.addIssue({ code: "custom", ...issue, path: ["messages", ...issue.path] });
    }),
  );

/**
 * What a session's intake would refuse in `messages` appended to an empty session: an id used
 * twice, a call's id taken again while that call waits, a result answering no call of the message
 * right before it, calls left unanswered before other messages. Calls waiting at the very end
 * (the open tail) are allowed, as in a live session, and so is what `append` allows: a call's id
 * used again once its call was answered, a result given twice (the converters tell it as text).
 */
function conversationIssues(messages: readonly Message[]): ValidationIssue[] {
  return [
    ...duplicateIdIssues(messages, { messageIds: new Set(), waitingToolUseIds: [] }),
    ...exchangeIssues(messages),
  ];
}

/**
 * Validates a snapshot and restores its dates; its messages are frozen deeply (a session's
 * own). @throws {ValidationError} naming the bad field.
 */
export function parseSnapshot(snapshot: unknown): ParsedSnapshot {
  // The schema's runtime parser: a snapshot is restored once, and a compiled schema (about 5x
  // faster per message, 20–80 ms to compile) would bring `z.compile` into every bundle.
  const parsed = parseOrThrow(SessionSnapshotSchema, snapshot, "session snapshot");
  freezeMessages(parsed.messages);
  return parsed;
}

/** An archive record as JSON (its messages' dates as ISO strings). */
export function serializeRecord(record: ArchiveRecord): unknown {
  if (record.kind !== "messages") return record;
  return { ...record, original: record.original.map(serializeMessage) };
}

/** A message as JSON: `createdAt` as an ISO string. */
export function serializeMessage(message: Message): SerializedMessage {
  return { ...message, createdAt: message.createdAt.toISOString() };
}

/** Validates one archive record as JSON (dates restored). @throws {ValidationError} naming `subject`. */
export function parseArchiveRecord(value: unknown, subject: string): ArchiveRecord {
  return parseOrThrow(ArchiveRecordSchema, value, subject);
}
