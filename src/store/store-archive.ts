import { CompactionError } from "../core/errors.js";
import type { ArchiveRecord, CompactionArchive } from "../session/archive.js";
import { parseArchiveRecord, serializeRecord } from "../session/snapshot.js";
import { storedDataError } from "./records.js";
import type { SessionStore } from "./session-store.js";

/** The key of a record in a session's key/value area. */
const keyOf = (handle: string) => `archive:${handle}`;

/**
 * A stored session's archive: each record under its own key in the session's key/value area,
 * apart from the head, so a compaction writes only what it removed and a recall reads one key.
 */
export class StoreArchive implements CompactionArchive {
  readonly #store: SessionStore;

  constructor(store: SessionStore) {
    this.#store = store;
  }

  /**
   * Writes each record under its handle. A clamp's handles follow the log's order and each
   * compaction draws numbers of its own (see `ArchiveKeeper`), so two records never share one;
   * should they anyway, a handle holding another record is refused (`aborted`: that compaction
   * lands nothing) rather than overwritten.
   */
  async put(sessionId: string, records: readonly ArchiveRecord[]): Promise<void> {
    for (const record of records) {
      const key = keyOf(record.handle);
      const data = JSON.stringify(serializeRecord(record));
      const existing = await this.#store.getValue(sessionId, key);
      if (existing === data) continue;
      if (existing !== undefined) {
        throw new CompactionError(
          "aborted",
          `session ${JSON.stringify(sessionId)}: recall handle ${record.handle} already holds another record (another worker compacted at the same time); nothing of this compaction was applied`,
        );
      }
      await this.#store.setValue(sessionId, key, data);
    }
  }

  /** @throws {ValidationError} naming the session when the stored record is bad. */
  async get(sessionId: string, handle: string): Promise<ArchiveRecord | undefined> {
    const data = await this.#store.getValue(sessionId, keyOf(handle));
    if (data === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      throw storedDataError(
        sessionId,
        ["archive", handle],
        [{ path: [], message: "is not valid JSON" }],
      );
    }
    return parseArchiveRecord(
      value,
      `stored session ${JSON.stringify(sessionId)} archive record ${handle}`,
    );
  }
}
