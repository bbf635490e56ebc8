import * as z from "zod/mini";
import { safeParse, ValidationError, type ValidationIssue } from "../core/errors.js";
import { NON_NEGATIVE_INT_SCHEMA } from "../core/option-schemas.js";
import { SerializedMessageSchema } from "../core/schemas.js";
import { LazilyCompiled } from "../internal/compiled-schema.js";
import { UsageSchema } from "../session/context-meter.js";
import type { SessionEntry } from "../session/session-entry.js";
import {
  ArchiveRecordSchema,
  type SessionSnapshot,
  serializeMessage,
  serializeRecord,
} from "../session/snapshot.js";

/** The format of the records this version writes; it reads this one and none newer. */
export const STORE_FORMAT = 1;

const count = NON_NEGATIVE_INT_SCHEMA;

/** What one log record holds: a session entry (messages, pins, a usage, compact summaries). */
export type LogEntry = SessionEntry;

/** A log record: its entry and the head version the writer's history had when it wrote it. */
export type LogRecord = LogEntry & {
  /**
   * The head version of the history the content was produced from: thinking in a message
   * written against an older head is bound to a prefix that has changed since.
   */
  headVersion: number;
};

/** A log record as stored: the record, and the format it was written in. */
export type StoredLogRecord = LogRecord & { format: typeof STORE_FORMAT };

/** Schema of a log record as stored, dates restored. */
export const LogRecordSchema: z.ZodMiniType<StoredLogRecord, unknown> = z.discriminatedUnion(
  "kind",
  [
    z.object({
      format: z.literal(STORE_FORMAT),
      headVersion: count,
      kind: z.literal("messages"),
      messages: z
        .array(SerializedMessageSchema)
        .check(z.minLength(1, "must hold at least one message")),
      pinned: z.exactOptional(z.array(z.string().check(z.minLength(1)))),
      replacesLast: z.exactOptional(z.literal(true)),
      archive: z.exactOptional(z.array(ArchiveRecordSchema).check(z.minLength(1))),
    }),
    z.object({
      format: z.literal(STORE_FORMAT),
      headVersion: count,
      kind: z.literal("pins"),
      messageIds: z
        .array(z.string().check(z.minLength(1)))
        .check(z.minLength(1, "must name at least one message")),
    }),
    z.object({
      format: z.literal(STORE_FORMAT),
      headVersion: count,
      kind: z.literal("usage"),
      usage: UsageSchema,
    }),
    z.object({
      format: z.literal(STORE_FORMAT),
      headVersion: count,
      kind: z.literal("summaries"),
      summaries: z.record(z.string().check(z.minLength(1)), z.string()),
    }),
  ],
);

const logRecordSchema = /* @__PURE__ */ new LazilyCompiled(LogRecordSchema);

/** A head record: the session's snapshot after a compaction. */
export interface HeadRecord {
  snapshot: SessionSnapshot;
  /**
   * Id of the last message when it is an assistant message with `tool_use` whose thinking the
   * compaction removed: results that answer it later need a continuation (see `Replay`).
   */
  strippedToolCall?: string;
}

/** A head record as stored: its snapshot is checked by `AgentSession.fromJSON`, not here. */
type StoredHeadRecord = Omit<HeadRecord, "snapshot"> & {
  format: typeof STORE_FORMAT;
  snapshot: unknown;
};

const HeadRecordSchema: z.ZodMiniType<StoredHeadRecord, unknown> = z.object({
  format: z.literal(STORE_FORMAT),
  snapshot: z.unknown(),
  strippedToolCall: z.exactOptional(z.string().check(z.minLength(1))),
});

/** A log record as stored. */
export function encodeRecord(record: LogRecord): string {
  const { headVersion } = record;
  switch (record.kind) {
    case "messages":
      return JSON.stringify({
        format: STORE_FORMAT,
        headVersion,
        kind: record.kind,
        messages: record.messages.map(serializeMessage),
        ...(record.pinned === undefined ? {} : { pinned: record.pinned }),
        ...(record.replacesLast === undefined ? {} : { replacesLast: record.replacesLast }),
        ...(record.archive === undefined ? {} : { archive: record.archive.map(serializeRecord) }),
      });
    case "pins":
      return JSON.stringify({
        format: STORE_FORMAT,
        headVersion,
        kind: record.kind,
        messageIds: record.messageIds,
      });
    case "usage":
      return JSON.stringify({
        format: STORE_FORMAT,
        headVersion,
        kind: record.kind,
        usage: record.usage,
      });
    case "summaries":
      return JSON.stringify({
        format: STORE_FORMAT,
        headVersion,
        kind: record.kind,
        summaries: record.summaries,
      });
  }
}

/** A head record as stored. */
export function encodeHead(head: HeadRecord): string {
  return JSON.stringify({ format: STORE_FORMAT, ...head });
}

/** The error for bad stored data of a session: subject `stored session "<id>"`, paths from `path`. */
export function storedDataError(
  sessionId: string,
  path: (string | number)[],
  issues: readonly ValidationIssue[],
): ValidationError {
  return new ValidationError(
    `stored session ${JSON.stringify(sessionId)}`,
    issues.map((issue) => ({ path: [...path, ...issue.path], message: issue.message })),
  );
}

/** Parses stored JSON and checks its format version before anything else. */
function parseJson(sessionId: string, path: (string | number)[], data: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw storedDataError(sessionId, path, [
      { path: [], message: `is not valid JSON (${reason})` },
    ]);
  }
  const format = (value as { format?: unknown } | null)?.format;
  if (typeof format === "number" && format > STORE_FORMAT) {
    throw storedDataError(sessionId, path, [
      {
        path: ["format"],
        message: `is ${format}, newer than this version of agent-compaction reads (${STORE_FORMAT}): upgrade it`,
      },
    ]);
  }
  return value;
}

function issuesOf(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === "symbol" ? String(part) : part)),
    message: issue.message,
  }));
}

/** @throws {ValidationError} naming the session and the field when record `seq` is bad. */
export function decodeRecord(sessionId: string, seq: number, data: string): LogRecord {
  const path = ["log", seq];
  const value = parseJson(sessionId, path, data);
  const parsed = safeParse(logRecordSchema.for(value), value);
  if (!parsed.success) throw storedDataError(sessionId, path, issuesOf(parsed.error));
  const { format: _format, ...record } = parsed.data;
  return record;
}

/**
 * Checks a stored head's envelope; its snapshot is checked by `AgentSession.fromJSON`.
 * @throws {ValidationError} naming the session and the field.
 */
export function decodeHead(sessionId: string, data: string): HeadRecord {
  const parsed = safeParse(HeadRecordSchema, parseJson(sessionId, ["head"], data));
  if (!parsed.success) throw storedDataError(sessionId, ["head"], issuesOf(parsed.error));
  const { snapshot, strippedToolCall } = parsed.data;
  return {
    snapshot: snapshot as SessionSnapshot,
    ...(strippedToolCall === undefined ? {} : { strippedToolCall }),
  };
}
