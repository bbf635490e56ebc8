import { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { sameValue } from "../internal/same-value.js";
import {
  type ArchiveRecord,
  type ArchiveRecordContent,
  type CompactionArchive,
  contentHandle,
  recordText,
} from "./archive.js";
import { renameHandles } from "./handle-renames.js";

/** The variants of a handle tried before an archive is taken for crafted. */
const MAX_VARIANTS = 8;

/**
 * How a stateless path names its handles: after what each record holds ({@link contentHandle}),
 * so the same history compacted again names the same handles, with no counter between requests.
 * The hash has 53 bits: crafted tool output can make two records meet, and a shared archive may
 * hold another record under a handle. Neither overwrites nor drops an original: the second
 * takes the next variant free. Given to an `ArchiveKeeper` by the paths that use it (a
 * session's bundle leaves it out).
 */
export const CONTENT_HANDLES = {
  /** A compaction's handle maker: two records of it never share a handle. */
  namer(tag: string): (record: ArchiveRecordContent) => string {
    const name = distinctNamer(tag);
    return (record) => name(recordText(record));
  },

  /** An intake's maker of the handles of the texts it clamps: two of them never share one. */
  clampNamer(tag: string): (original: string, toolUseId: string | undefined) => string {
    const name = distinctNamer(tag);
    return (original, toolUseId) => name(`clamp\u0000${toolUseId ?? ""}\u0000${original}`);
  },

  /**
   * What of `records` the archive lacks, and the handles moved (old to new): a record whose
   * handle the archive holds for other content goes under the first variant free (or holding
   * it already: an earlier request moved it the same).
   * @throws {CompactionError} `archive_error` past {@link MAX_VARIANTS} variants taken.
   */
  async missing(
    archive: CompactionArchive,
    sessionId: string,
    tag: string,
    records: readonly ArchiveRecord[],
  ): Promise<{ missing: ArchiveRecord[]; renamed: Map<string, string> }> {
    const missing: ArchiveRecord[] = [];
    const renamed = new Map<string, string>();
    // What this batch puts under each handle: a clamp's record and a compaction's may meet too.
    const batch = new Map<string, ArchiveRecord>();
    const place = { archive, sessionId, batch };
    for (const record of records) {
      const held = await heldUnder(place, record.handle);
      if (held === undefined) {
        missing.push(record);
        batch.set(record.handle, record);
        continue;
      }
      const text = recordText(record);
      if (sameRecord(held, record, text)) continue;
      const variant = await freeVariant(place, tag, record, text);
      renamed.set(record.handle, variant.handle);
      if (variant.held) continue;
      const moved = { ...record, handle: variant.handle };
      missing.push(moved);
      batch.set(moved.handle, moved);
    }
    return { missing, renamed };
  },

  /** `conversation` with the placeholders of moved handles naming their variants. */
  rename<T extends readonly Message[]>(
    conversation: T,
    records: readonly ArchiveRecord[],
    renamed: ReadonlyMap<string, string>,
  ): T | Message[] {
    return renamed.size === 0 ? conversation : renameHandles(conversation, records, renamed);
  },
};

/** The handle of the `variant`th variant of a content handle (the hash of its text salted). */
function variantHandle(text: string, variant: number, tag: string): string {
  return contentHandle(`${text}\u0000${variant}`, tag);
}

/**
 * A maker of content handles that never gives one handle to two texts: a hash of another text
 * taken moves to the next variant free. One per compaction or intake.
 */
function distinctNamer(tag: string): (text: string) => string {
  const taken = new Map<string, string>();
  return (text) => {
    let handle = contentHandle(text, tag);
    for (let variant = 1; taken.has(handle) && taken.get(handle) !== text; variant += 1)
      handle = variantHandle(text, variant, tag);
    taken.set(handle, text);
    return handle;
  };
}

/** How a path names its handles after their content: {@link CONTENT_HANDLES}. */
export type ContentHandles = typeof CONTENT_HANDLES;

/** Where a batch of records goes: the archive, and what the batch already put under a handle. */
interface Place {
  archive: CompactionArchive;
  sessionId: string;
  batch: ReadonlyMap<string, ArchiveRecord>;
}

/** The record under `handle`: one of this batch's, else the archive's. */
async function heldUnder(place: Place, handle: string): Promise<ArchiveRecord | undefined> {
  return place.batch.get(handle) ?? (await place.archive.get(place.sessionId, handle));
}

async function freeVariant(
  place: Place,
  tag: string,
  record: ArchiveRecord,
  text: string,
): Promise<{ handle: string; held: boolean }> {
  for (let variant = 1; variant <= MAX_VARIANTS; variant += 1) {
    const next = variantHandle(text, variant, tag);
    const held = await heldUnder(place, next);
    if (held === undefined) return { handle: next, held: false };
    if (sameRecord(held, record, text)) return { handle: next, held: true };
  }
  throw new CompactionError(
    "archive_error",
    `the archive holds other records under every variant of handle ${record.handle}`,
  );
}

/**
 * Whether the archive's record holds what `record` does (`text`, its {@link recordText}): the
 * same text, or the same data with keys in another order, as an archive may give a record back
 * (a JSONB column sorts them): not a collision.
 */
function sameRecord(held: ArchiveRecord, record: ArchiveRecord, text: string): boolean {
  if (recordText(held) === text) return true;
  if (held.kind === "messages" || record.kind === "messages") {
    if (held.kind !== "messages" || record.kind !== "messages") return false;
    const { original } = record;
    return (
      held.original.length === original.length &&
      held.original.every(
        (message, index) =>
          message.role === original[index]!.role &&
          sameValue(message.content, original[index]!.content),
      )
    );
  }
  return (
    held.kind === record.kind &&
    held.toolUseId === record.toolUseId &&
    sameValue(held.original, record.original)
  );
}
