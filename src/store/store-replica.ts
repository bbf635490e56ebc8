import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { SessionCore } from "../session/session-core.js";
import { type ParsedSnapshot, parseSnapshot } from "../session/snapshot.js";
import { decodeHead, decodeRecord, encodeHead, storedDataError } from "./records.js";
import { Replay, strippedToolCall } from "./replay.js";
import type { SessionStore, StoredState } from "./session-store.js";

/**
 * One worker's copy of a stored session: the core as of the store position it reflects (the
 * log's tail and the head's version). It reads what others wrote and replays it through the
 * core's apply, loads a new head, and swaps the head by compare-and-swap for a compaction.
 */
export class StoreReplica {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #core: SessionCore;
  readonly #replay: Replay;
  /** The last log record this copy reflects. */
  tail = 0;
  /** The head version this copy is built on. */
  version = 0;
  /** Whether the store was read once (the session was opened). */
  read = false;
  /** The session as stored, while a trim the store did not take holds in this copy alone. */
  #stored: ParsedSnapshot | undefined;

  constructor(
    store: SessionStore,
    sessionId: string,
    core: SessionCore,
    keepStaleThinking: boolean,
  ) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#core = core;
    this.#replay = new Replay(keepStaleThinking);
  }

  /** Brings the copy up to the store: the records appended since, or all of it after a new head. */
  async sync(known?: StoredState): Promise<void> {
    this.reconcile();
    const sessionId = this.#sessionId;
    const state =
      known ?? (await this.#store.read(sessionId, this.tail, this.read ? this.version : undefined));
    if (this.read && state.version === this.version) {
      this.#replayRecords(state.records);
      return;
    }
    const full = this.tail <= state.through ? state : await this.#store.read(sessionId, 0);
    this.#loadHead(full);
    this.#replayRecords(full.records);
    this.read = true;
  }

  /** Takes a new head (a compaction another worker landed), or the empty session at version 0. */
  #loadHead(state: StoredState): void {
    const sessionId = this.#sessionId;
    this.version = state.version;
    this.tail = state.through;
    if (state.head === undefined) return;
    const head = decodeHead(sessionId, state.head);
    let snapshot: ReturnType<typeof parseSnapshot>;
    try {
      snapshot = parseSnapshot(head.snapshot);
    } catch (error) {
      if (!ValidationError.isInstance(error)) throw error;
      throw storedDataError(sessionId, ["head", "snapshot"], error.issues);
    }
    if (snapshot.sessionId !== sessionId) {
      throw storedDataError(
        sessionId,
        ["head", "snapshot", "sessionId"],
        [{ path: [], message: `is ${JSON.stringify(snapshot.sessionId)}, not this session's id` }],
      );
    }
    this.#core.load(snapshot);
    this.#replay.strippedToolCall = head.strippedToolCall;
  }

  /** Replays stored records, which must follow this copy's position without a gap. */
  #replayRecords(records: readonly { seq: number; data: string }[]): void {
    for (const { seq, data } of records) {
      if (seq <= this.tail) continue;
      if (seq !== this.tail + 1) {
        throw storedDataError(
          this.#sessionId,
          ["log", this.tail + 1],
          [{ path: [], message: `is missing (the next record read is ${seq})` }],
        );
      }
      this.applyRecord(seq, decodeRecord(this.#sessionId, seq, data));
    }
  }

  /**
   * Applies record `seq` through the core's apply, as every worker does; `store`: this worker
   * wrote it, and keeps the originals of what it clamped (others' records were kept by them).
   */
  applyRecord(
    seq: number,
    record: ReturnType<typeof decodeRecord>,
    store = false,
  ): Promise<void> | undefined {
    const { headVersion, ...entry } = record;
    const { history } = this.#core;
    const landing = this.#replay.entry(
      entry,
      headVersion < this.version,
      (id) => history.has(id),
      history.last,
    );
    this.tail = seq;
    return landing === undefined ? undefined : this.#core.apply(landing, { store });
  }

  /**
   * The last resort's trim when the store failed its swap: it lands in this copy alone, so the
   * request that follows fits the window, and the next call undoes it ({@link reconcile}).
   */
  landLocally(conversation: Message[]): void {
    this.#stored ??= parseSnapshot(this.#core.toJSON());
    this.#core.history.replace(conversation);
  }

  /**
   * Undoes a trim that landed in this copy alone (see {@link landLocally}): the copy is the
   * store's again at its position, with nothing lost; every call does this before it reads or
   * writes, and the trim is computed again, stored this time, once the store answers.
   */
  reconcile(): void {
    const stored = this.#stored;
    this.#stored = undefined;
    if (stored !== undefined) this.#core.load(stored);
  }

  /**
   * The commit step's swap: the head as the session would be with `conversation`, by
   * compare-and-swap; it replaces the history once the swap succeeded.
   */
  async swap(conversation: Message[]): Promise<boolean> {
    const stripped = strippedToolCall(this.#core.history.last, conversation.at(-1));
    const data = encodeHead({
      snapshot: this.#core.toJSON(conversation),
      ...(stripped === undefined ? {} : { strippedToolCall: stripped }),
    });
    const swapped = await this.#store.swapHead(this.#sessionId, this.version, {
      through: this.tail,
      data,
    });
    if (!swapped) {
      await this.sync();
      return false;
    }
    this.#core.history.replace(conversation);
    this.version += 1;
    this.#replay.strippedToolCall = stripped;
    // What others appended while this worker compacted follows the new head here too; the swap
    // landed whether or not that read does (a failed one is read again at the next call).
    await this.sync().catch(() => {});
    return true;
  }
}
