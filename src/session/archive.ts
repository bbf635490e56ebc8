import type { ArchiveRecord } from "../core/archive-record.js";
import { startsWithCompaction } from "../core/conversation-structure.js";
import type { Message, ToolResultBlock } from "../core/message.js";
import { holdsThinking, isThinking } from "../core/preserved-thinking.js";
import { archivedNote } from "../core/summary-format.js";
import { isSummaryTurn } from "../core/turn.js";
import { freezeDeeply } from "../internal/frozen.js";
import { spreadWith } from "../internal/plain-object.js";
import { RECALL_MARK, recallHandleIn } from "../internal/recall-mark.js";

export type { ArchiveRecord } from "../core/archive-record.js";

/**
 * Where a session keeps what its compactions remove: in memory by default
 * ({@link MemoryArchive}); a shared store can implement it. Records are written before the
 * compaction that made them is applied, so nothing is removed that is not kept.
 */
export interface CompactionArchive {
  /** Keeps records of a session. */
  put(sessionId: string, records: readonly ArchiveRecord[]): void | Promise<void>;
  /** The record under a handle, if this session has one. */
  get(
    sessionId: string,
    handle: string,
  ): ArchiveRecord | undefined | Promise<ArchiveRecord | undefined>;
}

/** The in-memory {@link CompactionArchive}: a map per session, kept as long as the object lives. */
export class MemoryArchive implements CompactionArchive {
  readonly #sessions = new Map<string, Map<string, ArchiveRecord>>();

  put(sessionId: string, records: readonly ArchiveRecord[]): void {
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = new Map();
      this.#sessions.set(sessionId, session);
    }
    // Frozen: a record recall hands out cannot change what later recalls and summaries read.
    for (const record of records) session.set(record.handle, freezeDeeply(record));
  }

  get(sessionId: string, handle: string): ArchiveRecord | undefined {
    return this.#sessions.get(sessionId)?.get(handle);
  }

  /** Every record of a session, in the order they were kept. */
  records(sessionId: string): ArchiveRecord[] {
    return [...(this.#sessions.get(sessionId)?.values() ?? [])];
  }
}

/** A session's fingerprint in its handles, so a handle from another session is told apart. */
export function sessionTag(sessionId: string): string {
  let hash = 2166136261;
  for (let index = 0; index < sessionId.length; index += 1) {
    hash = Math.imul(hash ^ sessionId.charCodeAt(index), 16777619);
  }
  return (hash >>> 0).toString(16).padStart(8, "0").slice(0, 4);
}

/** A record before it has a handle: what its handle may be named after. */
export type ArchiveRecordContent = ArchiveRecord extends infer Record_
  ? Record_ extends ArchiveRecord
    ? Omit<Record_, "handle">
    : never
  : never;

/**
 * A handle named after a record's content, `r<number>-<tag>`: the same content gives the same
 * handle, in any process and any call. Stateless paths (which keep no counter between requests)
 * name their records so: the same compaction of the same conversation keeps the same records
 * under the same handles, and its placeholders read the same. The number is 53 bits of two
 * 32-bit hashes of the text (FNV-1a and a multiply-xorshift), linear in its length, written
 * with 16 digits (zeros first): every content handle has one length, so a handle moved to a
 * variant as it is kept (`ContentHandles.missing`) leaves its placeholder's length as it was,
 * and a text clamped to its share with the first handle stays within it.
 */
export function contentHandle(text: string, tag: string): string {
  let first = 2166136261;
  let second = 0x9e3779b9;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 16777619);
    second = Math.imul(second ^ code, 0x5bd1e995);
    second ^= second >>> 15;
  }
  const number = ((second >>> 0) & 0x1fffff) * 0x100000000 + (first >>> 0);
  return `r${String(number).padStart(16, "0")}-${tag}`;
}

/** The text a record's content handle is named after: what it holds, without ids or times. */
export function recordText(record: ArchiveRecordContent): string {
  switch (record.kind) {
    case "tool_result":
    case "tool_input":
      return `${record.kind}\u0000${record.toolUseId}\u0000${JSON.stringify(record.original)}`;
    case "messages":
      return `messages\u0000${JSON.stringify(record.original.map(({ role, content }) => [role, content]))}`;
  }
}

const mark = (handle: string) => `${RECALL_MARK}${handle}]`;

/**
 * What a compaction of `from` into `compacted` removed or replaced, as archive records, and
 * `compacted` with each placeholder naming its handle: a replaced tool result's content, a
 * cleared tool input's note, and the summary (or trim notice) that stands for removed
 * messages. `nextHandle` makes each handle.
 */
export function archiveChanges(
  from: readonly Message[],
  compacted: readonly Message[],
  nextHandle: (record: ArchiveRecordContent) => string,
): { records: ArchiveRecord[]; conversation: Message[] } {
  const records: ArchiveRecord[] = [];
  const aligned = alignedChanges(from, compacted, nextHandle, records);
  if (aligned !== undefined) return { records, conversation: aligned };
  const before = new Map(from.map((message) => [message.id, message]));
  const kept = new Set(compacted.map((message) => message.id));
  const conversation = compacted.map((message) => {
    const original = before.get(message.id);
    if (original === undefined || original === message) return message;
    return annotateChanged(original, message, nextHandle, records);
  });
  const removed = from.filter((message) => !kept.has(message.id));
  if (removed.length > 0) {
    const content = { kind: "messages" as const, original: removed };
    const handle = nextHandle(content);
    records.push({ handle, ...content });
    // Our summary or trim notice names the handle; the API's signed compaction block is left
    // as it is (a block after it would fail the prefix check of the turns kept after it).
    const standIn = conversation.findIndex(
      (message) =>
        !before.has(message.id) &&
        isSummaryTurn(message.turnId) &&
        message.role === "user" &&
        !startsWithCompaction(message),
    );
    const message = conversation[standIn];
    if (message !== undefined) {
      const note = `${archivedNote(removed.length)}${mark(handle)}`;
      conversation[standIn] = {
        ...message,
        content: [...message.content, { type: "text", text: note }],
      } as Message;
    }
  }
  return { records, conversation };
}

/**
 * {@link archiveChanges} of a compaction that kept every message in its place (a masking pass:
 * as many messages, the same id at each place), without a lookup by id; `undefined` (and no
 * record made) for any other.
 */
function alignedChanges(
  from: readonly Message[],
  compacted: readonly Message[],
  nextHandle: (record: ArchiveRecordContent) => string,
  records: ArchiveRecord[],
): Message[] | undefined {
  const moved = (message: Message, index: number) =>
    message !== from[index] && message.id !== from[index]!.id;
  if (from.length !== compacted.length || compacted.some(moved)) return undefined;
  return compacted.map((message, index) =>
    message === from[index] ? message : annotateChanged(from[index]!, message, nextHandle, records),
  );
}

function annotateChanged(
  original: Message,
  message: Message,
  nextHandle: (record: ArchiveRecordContent) => string,
  records: ArchiveRecord[],
): Message {
  const keep = (content: ArchiveRecordContent): string => {
    const handle = nextHandle(content);
    records.push({ handle, ...content } as ArchiveRecord);
    return handle;
  };
  let other = false;
  // Thinking removed to keep the prefix valid is no compaction: it could not be sent back.
  const blocks = holdsThinking(original)
    ? original.content.filter((block) => !isThinking(block))
    : original.content;
  const content = message.content.map((block, index) => {
    const was = blocks[index];
    if (was === undefined || was === block) return block;
    if (block.type === "tool_result" && was.type === "tool_result") {
      const handle = keep({ kind: "tool_result", toolUseId: was.toolUseId, original: was });
      // spreadWith, not a spread: what it makes V8 freezes fast (the history freezes it).
      return spreadWith(block, {
        content:
          typeof block.content === "string"
            ? `${block.content}${mark(handle)}`
            : [...block.content, { type: "text" as const, text: mark(handle).trim() }],
      });
    }
    if (block.type === "tool_use" && was.type === "tool_use" && block.input !== was.input) {
      const handle = keep({ kind: "tool_input", toolUseId: was.id, original: was.input });
      const note = block.input["_cleared"];
      return typeof note === "string"
        ? { ...block, input: { ...block.input, _cleared: `${note}${mark(handle)}` } }
        : block;
    }
    other = true;
    return block;
  });
  if (other || content.length !== blocks.length) keep({ kind: "messages", original: [original] });
  return spreadWith(message, { content }) as Message;
}

/**
 * The tool results of `conversation` that stand for an archived original (their content names
 * a handle), with the originals: what a summarizer should read instead of the placeholders. By
 * tool use id: an id two of them share (reused by a provider) is left out, as it names neither.
 */
export async function archivedOriginals(
  conversation: readonly Message[],
  lookup: (handle: string) => ArchiveRecord | undefined | Promise<ArchiveRecord | undefined>,
): Promise<Map<string, ToolResultBlock>> {
  const originals = new Map<string, ToolResultBlock>();
  // An id given to two placeholders (a provider numbering each reply's calls) names neither.
  const twice = new Set<string>();
  for (const message of conversation) {
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const text =
        typeof block.content === "string"
          ? block.content
          : block.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      const handle = recallHandleIn(text);
      if (handle === undefined) continue;
      const record = await lookup(handle);
      if (record?.kind !== "tool_result") continue;
      if (originals.has(block.toolUseId)) twice.add(block.toolUseId);
      originals.set(block.toolUseId, record.original);
    }
  }
  for (const id of twice) originals.delete(id);
  return originals;
}
