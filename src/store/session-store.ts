import { parseOrThrow, ValidationError } from "../core/errors.js";
import { NON_NEGATIVE_INT_SCHEMA } from "../core/option-schemas.js";

/** One record of a session's log: its sequence number (1, 2, …) and its data as stored. */
export interface StoredRecord {
  seq: number;
  data: string;
}

/** What {@link SessionStore.read} returns: the head and the log records after it. */
export interface StoredState {
  /** Sequence number of the last record appended; 0 when none was. */
  tail: number;
  /** Version of the head: 0 until the first compaction, then 1, 2, … */
  version: number;
  /** The records the head replaces: every record with `seq <= through` is in it. */
  through: number;
  /**
   * The head's data (a compacted prefix); `undefined` at version 0, and when the version is
   * the `knownVersion` the caller gave (it has that head already).
   */
  head: string | undefined;
  /** The records after `max(after, through)`, in order. */
  records: StoredRecord[];
}

/** What an append did: appended as record `seq`, or refused, with what the caller missed. */
export type AppendResult =
  | { appended: true; seq: number }
  | {
      appended: false;
      /** The state that refused it: as `read(sessionId, expected.tail, expected.version)` returns it then. */
      state: StoredState;
    };

/** The position a write is conditional on: the log's tail and the head's version as last read. */
export interface StorePosition {
  tail: number;
  version: number;
}

/**
 * Where sessions live when several workers share them: per session, an ordered log of records
 * appended atomically, a versioned head (the compacted prefix), a lease with an expiry, and a
 * small key/value area. Data is opaque text to the store; `openSession` gives it meaning.
 *
 * Every write is conditional, so no worker overwrites what another wrote:
 * - `append` adds one record only if nothing was appended and no head swapped since the
 *   caller's position (a compare-and-swap on both);
 * - `swapHead` replaces the head only if its version is the one the caller read, and the new
 *   head covers exactly the records up to `through`: records appended meanwhile stay after it.
 *
 * Implementations: `MemoryStore`, `FileStore`, `RedisStore` (`agent-compaction/redis`) and
 * `PostgresStore` (`agent-compaction/postgres`).
 */
export interface SessionStore {
  /**
   * The head and the records with `seq > max(after, through)`, read as one consistent state;
   * the head's data is left out when its version is `knownVersion`.
   */
  read(sessionId: string, after: number, knownVersion?: number): Promise<StoredState>;
  /**
   * Appends `data` as record `expected.tail + 1`, persisted before the promise resolves, if the
   * tail and the head's version are still `expected`. On a conflict nothing is written and the
   * answer carries the state since `expected.tail`, so the caller need not read it again.
   */
  append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult>;
  /**
   * Replaces the head with `head.data`, covering the records up to `head.through` (they may be
   * deleted), if its version is still `expectedVersion` and `head.through` lies between the
   * current head's `through` and the tail; resolves to whether it did (on `false` nothing changed).
   */
  swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean>;
  /**
   * Takes the session's lease for `owner`, or extends it when `owner` holds it already, until
   * `ttlMs` from now; resolves to `false` while another owner's lease has not expired.
   */
  acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives up the lease if `owner` holds it. */
  releaseLease(sessionId: string, owner: string): Promise<void>;
  /** A value of the session's key/value area. */
  getValue(sessionId: string, key: string): Promise<string | undefined>;
  /** Sets a value of the session's key/value area (last writer wins). */
  setValue(sessionId: string, key: string, value: string): Promise<void>;
  /** Deletes everything stored for the session. */
  deleteSession(sessionId: string): Promise<void>;
}

/** Whether `value` holds no lone surrogate (it is well-formed UTF-16) and no NUL. */
function isStorableText(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code === 0) return false;
    if (code >= 0xdc00 && code <= 0xdfff) return false;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      index += 1;
    }
  }
  return true;
}

/**
 * @throws {ValidationError} unless `value` is a non-empty string (a session id or a key) that
 * is well-formed UTF-16 and holds no NUL: stores keep names as UTF-8, which turns every lone
 * surrogate into U+FFFD (two ids would share one session), and PostgreSQL's text refuses NUL.
 */
export function assertName(value: unknown, subject: string): asserts value is string {
  if (typeof value !== "string" || value.length === 0) {
    throw new ValidationError(subject, [{ path: [], message: "must be a non-empty string" }]);
  }
  if (!isStorableText(value)) {
    throw new ValidationError(subject, [
      {
        path: [],
        message: "must be well-formed UTF-16 without NUL (it holds a lone surrogate or a NUL)",
      },
    ]);
  }
}

/** @throws {ValidationError} unless `value` is a whole number ≥ 0 (a sequence number or a version). */
export function assertCount(value: unknown, subject: string): asserts value is number {
  parseOrThrow(NON_NEGATIVE_INT_SCHEMA, value, subject);
}

/** Checks a store call's arguments (every implementation validates the same way). */
export function checkArguments(
  sessionId: unknown,
  position?: Partial<StorePosition> & { through?: number },
): void {
  assertName(sessionId, "session id");
  if (position === undefined) return;
  for (const [key, value] of Object.entries(position)) assertCount(value, key);
}

/**
 * The error for bad stored data of a session, as `openSession` reports it: a `ValidationError`
 * about `stored session "<id>"`, at `path`, with the server's error as its `cause` when there is one.
 */
export function storedStateError(
  sessionId: string,
  path: (string | number)[],
  message: string,
  cause?: unknown,
): ValidationError {
  return new ValidationError(
    `stored session ${JSON.stringify(sessionId)}`,
    [{ path, message }],
    cause === undefined ? undefined : { cause },
  );
}

const isCount = (value: unknown) =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/**
 * Checks a state a store read before it is returned: whole positions with `through <= tail`,
 * a tail not behind the caller's `after` (records it saw are not lost), and exactly the records
 * `max(after, through) + 1 … tail`. Every store's `read` (and a refused `append`'s state) goes
 * through it, so lost records (a lagging replica, a restart without persistence) fail the call
 * instead of sending a writer round a compare-and-swap it can never win.
 * @throws {ValidationError} about `stored session "<id>"` naming the field.
 */
export function checkStoredState(
  sessionId: string,
  state: StoredState,
  after: number,
): StoredState {
  for (const key of ["tail", "version", "through"] as const) {
    if (!isCount(state[key]))
      throw storedStateError(
        sessionId,
        [key],
        `must be a whole number ≥ 0 (it is ${String(state[key])})`,
      );
  }
  const { tail, through, records } = state;
  if (through > tail)
    throw storedStateError(sessionId, ["through"], `is ${through}, past the tail (${tail})`);
  if (after > tail) {
    throw storedStateError(
      sessionId,
      ["tail"],
      `is ${tail}, behind position ${after} read before: stored records were lost (a restart without persistence, a lagging replica?)`,
    );
  }
  const first = Math.max(after, through) + 1;
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    if (record.seq !== first + index || typeof record.data !== "string") {
      throw storedStateError(sessionId, ["log", first + index], "is missing or out of order");
    }
  }
  if (records.length !== tail - first + 1) {
    throw storedStateError(
      sessionId,
      ["log"],
      `holds ${records.length} of the records ${first}…${tail} the tail names: records were lost (a lagging replica, an evicted key?)`,
    );
  }
  return state;
}
