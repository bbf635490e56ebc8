import { ValidationError } from "../core/errors.js";
import type { Message, ToolResultBlock } from "../core/message.js";
import { freezeDeeply } from "../internal/frozen.js";
import { RECALL_HANDLE_PATTERN, recallNumbersIn } from "../internal/recall-mark.js";
import { headOf } from "../internal/whole-characters.js";
import {
  type ArchiveRecord,
  archiveChanges,
  archivedOriginals,
  type CompactionArchive,
  MemoryArchive,
  sessionTag,
} from "./archive.js";
import type { ContentHandles } from "./content-handles.js";
import type { SessionSnapshot } from "./snapshot.js";
import { serializeRecord } from "./snapshot.js";

const NO_RENAMES: ReadonlyMap<string, string> = new Map();

/** How every recall mark `recallNumbersIn` reads begins: `[recall r<number>-<tag>]`. */
const RECALL_MARK_START = "[recall r";

/** The lowest and the span of the numbers a compaction draws its handles from. */
const DRAWN_HANDLE_BASE = 100_000_000_000;
const DRAWN_HANDLE_SPAN = 900_000_000_000;

/**
 * Above the counter's numbers: a mark of a higher one in appended text (tool output is anyone's)
 * does not move it, so it never nears the drawn numbers, where {@link ArchiveKeeper.accept} stops
 * following it and every clamp would name one handle.
 */
const COUNTER_LIMIT = 1_000_000_000;

/** A clamped original the archive has not taken: its puts so far, and whether one runs. */
interface Unkept {
  record: ArchiveRecord;
  tries: number;
  putting: boolean;
}

/** How many puts a clamped original gets; after them it is recalled from memory only. */
const UNKEPT_TRIES = 3;

/**
 * A number no other compaction draws (12 digits, far above any counter): its handles are this
 * and the numbers after it. Two compactions' handles meet with odds of about their count over
 * 10^11; a store's archive refuses a handle taken anyway (`StoreArchive`).
 */
function drawnHandleBase(): number {
  const [high = 0, low = 0] = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return DRAWN_HANDLE_BASE + (((high % 1024) * 2 ** 32 + low) % DRAWN_HANDLE_SPAN);
}

/**
 * A session's side of its archive: hands out recall handles (`r7-3f2a`: a number and the
 * session's tag), keeps what each compaction removes before it is applied, and answers recalls.
 * Clamping numbers its handles with a counter the history carries (a stored session's log
 * orders them); each compaction draws a number of its own, so one that archived and never
 * landed (its worker died, its swap was refused or lost) leaves no handle another worker's
 * compaction or clamp could need, and both faces of a session write handles of one length.
 * With `contentHandles` (a stateless path, which keeps no counter between requests), a handle
 * is named after its record's content instead ({@link ContentHandles}).
 */
export class ArchiveKeeper {
  readonly #archive: CompactionArchive;
  readonly #sessionId: string;
  readonly #tag: string;
  readonly #content: ContentHandles | undefined;
  /** The number of the next handle; stored in snapshots. */
  next = 1;
  /** Records being kept (replayed, clamped, restored): a recall waits for them. */
  readonly #keeping = new Set<Promise<unknown>>();
  /**
   * What clamping cut that the archive has not taken yet (its `put` failed or runs): recalled
   * from here, and put again with the next clamp's, so an outage loses nothing this process holds.
   */
  readonly #unkept = new Map<string, Unkept>();

  constructor(
    archive: CompactionArchive,
    sessionId: string,
    options: { contentHandles?: ContentHandles | undefined } = {},
  ) {
    this.#archive = archive;
    this.#sessionId = sessionId;
    this.#tag = sessionTag(sessionId);
    this.#content = options.contentHandles;
  }

  get archive(): CompactionArchive {
    return this.#archive;
  }

  /**
   * With content handles, how a clamp names the handle of the text it cuts (the same each time
   * the same text is cut); `undefined`: the session's counter ({@link handleAt}) names them.
   */
  get clampNamer(): ((original: string, toolUseId: string | undefined) => string) | undefined {
    const content = this.#content;
    if (content === undefined) return undefined;
    return content.clampNamer(this.#tag);
  }

  /**
   * What turning `before` into `after` removed or replaced, as records under new handles, and
   * `after` with each placeholder naming its handle. Store the records before applying it.
   */
  prepare(
    before: readonly Message[],
    after: readonly Message[],
  ): { records: ArchiveRecord[]; conversation: Message[] } {
    if (this.#content !== undefined)
      return archiveChanges(before, after, this.#content.namer(this.#tag));
    let number = drawnHandleBase();
    return archiveChanges(before, after, () => `r${number++}-${this.#tag}`);
  }

  /** The handle `offset` places after the next one, without taking it (intake builds; apply takes). */
  handleAt(offset: number): string {
    return `r${this.next + offset}-${this.#tag}`;
  }

  /** Takes handles made by {@link ArchiveKeeper.handleAt}: the counter moves past them. */
  accept(records: readonly ArchiveRecord[]): void {
    for (const record of records) {
      const number = Number(record.handle.slice(1, record.handle.indexOf("-")));
      // A compaction's drawn numbers are not the counter's.
      if (Number.isSafeInteger(number) && number >= this.next && number < DRAWN_HANDLE_BASE)
        this.next = number + 1;
    }
  }

  /**
   * Moves the counter past the handles of this session that appended messages name: a
   * conversation taken over whole (a history resumed, an agent's state read again by a new
   * session with the same id and archive) never reuses a handle its placeholders hold.
   */
  acceptNamed(messages: readonly Message[]): void {
    const take = (text: string) => {
      // Most texts name no handle: one search, nothing made (see recallNumbersIn).
      if (!text.includes(RECALL_MARK_START)) return;
      for (const number of recallNumbersIn(text, this.#tag))
        if (Number.isSafeInteger(number) && number >= this.next && number < COUNTER_LIMIT)
          this.next = number + 1;
    };
    for (let index = 0; index < messages.length; index += 1) {
      const { content } = messages[index]!;
      for (let at = 0; at < content.length; at += 1) {
        const block = content[at]!;
        if (block.type === "text") take(block.text);
        else if (block.type === "tool_result") {
          if (typeof block.content === "string") take(block.content);
          else for (const part of block.content) if (part.type === "text") take(part.text);
        } else if (block.type === "tool_use" && typeof block.input["_cleared"] === "string")
          take(block.input["_cleared"]);
      }
    }
  }

  /**
   * Keeps records; resolves once the archive holds them. With content handles, never over a
   * record of other content under the same handle (see {@link storeMissing}).
   */
  async store(records: readonly ArchiveRecord[]): Promise<void> {
    if (this.#content !== undefined) await this.storeMissing(records);
    else if (records.length > 0) await this.#archive.put(this.#sessionId, records);
  }

  /**
   * Keeps a compaction's records before `conversation` applies: all of them, or with content
   * handles those the archive lacks, the placeholders of any a collision moved renamed
   * (see {@link ContentHandles}). What to apply.
   */
  async keep<T extends readonly Message[]>(
    records: readonly ArchiveRecord[],
    conversation: T,
  ): Promise<T | Message[]> {
    const content = this.#content;
    if (content === undefined) {
      await this.store(records);
      return conversation;
    }
    const renamed = await this.storeMissing(records);
    return content.rename(conversation, records, renamed);
  }

  /**
   * Keeps the records the archive does not hold yet: those of a stored record replayed here,
   * whose writer may have stopped between landing it and keeping them. A recall waits for it.
   * With content handles, one whose handle the archive holds for other content goes under a
   * variant: the moved handles are returned, old to new.
   */
  storeMissing(records: readonly ArchiveRecord[]): Promise<ReadonlyMap<string, string>> {
    return this.#tracked(this.#storeMissing(records));
  }

  /**
   * Keeps what clamping cut, with what an earlier clamp's failed `put` left: until the archive
   * takes them, they are recalled from memory. Rejects with the archive's failure.
   */
  keepClamped(records: readonly ArchiveRecord[]): Promise<void> {
    const earlier = [...this.#unkept.values()];
    for (const record of records)
      this.#unkept.set(record.handle, { record: freezeDeeply(record), tries: 0, putting: false });
    // Each earlier one on its own, a few times: one the archive never takes (too large for a
    // store's item) blocks no other, and is not sent again with every clamp.
    for (const held of earlier)
      if (!held.putting && held.tries < UNKEPT_TRIES)
        this.#tracked(this.#putUnkept([held])).catch(() => {});
    return this.#tracked(
      this.#putUnkept(records.map((record) => this.#unkept.get(record.handle)!)),
    );
  }

  async #putUnkept(held: readonly Unkept[]): Promise<void> {
    for (const each of held) {
      each.tries += 1;
      each.putting = true;
    }
    try {
      await this.store(held.map((each) => each.record));
    } finally {
      for (const each of held) each.putting = false;
    }
    for (const each of held)
      if (this.#unkept.get(each.record.handle) === each) this.#unkept.delete(each.record.handle);
  }

  /** `keeping`, which a recall waits for until it settles. */
  #tracked<T>(keeping: Promise<T>): Promise<T> {
    const tracked: Promise<T> = keeping.finally(() => this.#keeping.delete(tracked));
    this.#keeping.add(tracked);
    return tracked;
  }

  async #storeMissing(records: readonly ArchiveRecord[]): Promise<ReadonlyMap<string, string>> {
    if (this.#content !== undefined) {
      const { missing, renamed } = await this.#content.missing(
        this.#archive,
        this.#sessionId,
        this.#tag,
        records,
      );
      if (missing.length > 0) await this.#archive.put(this.#sessionId, missing);
      return renamed;
    }
    const missing: ArchiveRecord[] = [];
    for (const record of records) {
      if ((await this.#archive.get(this.#sessionId, record.handle)) === undefined)
        missing.push(record);
    }
    await this.store(missing);
    return NO_RENAMES;
  }

  /** The originals of the placeholder tool results in `conversation`, by tool use id. */
  originals(conversation: readonly Message[]): Promise<Map<string, ToolResultBlock>> {
    return archivedOriginals(conversation, (handle) => this.#archive.get(this.#sessionId, handle));
  }

  /**
   * The archive's part of a snapshot: the next handle, the records of an in-memory archive, and
   * what the archive has not taken yet (a put failed or runs: a slow `MemoryArchive` subclass
   * too), which travels with the snapshot: restored, it is put again.
   */
  snapshot(): NonNullable<SessionSnapshot["archive"]> {
    const inMemory = this.#archive instanceof MemoryArchive;
    const held = inMemory ? [...this.#archive.records(this.#sessionId)] : [];
    const handles = new Set(held.map((record) => record.handle));
    for (const { record } of this.#unkept.values())
      if (!handles.has(record.handle)) held.push(record);
    const records = held.map(serializeRecord);
    // An archive of the session's own carries its records; an external one only what it lacks.
    if (inMemory) return { next: this.next, records };
    return { next: this.next, external: true, ...(records.length === 0 ? {} : { records }) };
  }

  /**
   * Takes a snapshot's archive part: its records go back into this session's archive (a recall
   * waits for them). The counter moves past every handle its records and `messages` name, as
   * appending moves it: a snapshot whose `next` is behind them (edited, or written by hand) never
   * makes a later clamp reuse a handle and overwrite a restored original. Resolves once the
   * archive holds the records; rejects with its failure.
   */
  restore(
    snapshot: { next: number; records?: ArchiveRecord[] },
    messages: readonly Message[],
  ): Promise<void> | undefined {
    this.next = snapshot.next;
    const records = snapshot.records ?? [];
    this.accept(records);
    this.acceptNamed(messages);
    if (records.length === 0) return undefined;
    // Put at once; a put that throws rejects as one that fails.
    const put = async () => this.#archive.put(this.#sessionId, records);
    return this.#tracked(put());
  }

  /** The record under `handle`. @throws {ValidationError} for a handle this session never gave. */
  async recall(handle: unknown): Promise<ArchiveRecord> {
    const issue = (message: string) =>
      new ValidationError("recall handle", [{ path: [], message }]);
    // The handle a model asked for, cut short: the message goes back into its context.
    const shown =
      typeof handle === "string"
        ? JSON.stringify(handle.length > 80 ? `${headOf(handle, 80)}…` : handle)
        : `a ${typeof handle}`;
    if (typeof handle !== "string" || !RECALL_HANDLE_PATTERN.test(handle)) {
      throw issue(`${shown} is not a recall handle (like "r7-${this.#tag}")`);
    }
    if (!handle.endsWith(`-${this.#tag}`)) {
      throw issue(
        `${shown} belongs to another session (this session's handles end in -${this.#tag})`,
      );
    }
    if (this.#keeping.size > 0) await Promise.allSettled([...this.#keeping]);
    const unkept = this.#unkept.get(handle);
    if (unkept !== undefined) return unkept.record;
    const record = await this.#archive.get(this.#sessionId, handle);
    if (record === undefined) throw issue(`nothing is archived under "${handle}" in this session`);
    return record;
  }
}
