import * as z from "zod/mini";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { type Clock, systemClock } from "../core/message-factory.js";
import {
  BOOLEAN_SCHEMA,
  CLOCK_SCHEMA,
  methodsSchema,
  optionsSchema,
} from "../core/option-schemas.js";
import {
  type AppendResult,
  assertCount,
  assertName,
  checkArguments,
  checkStoredState,
  type SessionStore,
  type StoredState,
  type StorePosition,
} from "../store/session-store.js";
import { StoreError } from "../store/store-error.js";
import {
  inTransaction,
  migratePostgres,
  type PostgresPool,
  TABLE_PREFIX_SCHEMA,
  tableNames,
} from "./migration.js";

/** Options of {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** A `pg` Pool (or anything with its `query` and `connect`); the store never ends it. */
  pool: PostgresPool;
  /** Prefix of the store's table names. @default "agent_compaction" */
  tablePrefix?: string;
  /** Create the tables on first use when missing (see `postgresMigration`). @default true */
  migrate?: boolean;
  /** The clock leases expire by (the workers' clocks, not the server's). @default the wall clock */
  clock?: Clock;
}

const toNumber = (value: unknown) => Number(value ?? 0);

/** A server's or pool's error as a `StoreError` naming the session (typed errors pass as they are). */
function asStoreError(sessionId: string, error: unknown): Error {
  if (StoreError.isInstance(error) || ValidationError.isInstance(error)) return error;
  const message = String((error as { message?: unknown } | null)?.message ?? error);
  return new StoreError("io_error", sessionId, message, { cause: error });
}

/** Defaults of {@link PostgresStoreOptions} (`tablePrefix`: `DEFAULT_TABLE_PREFIX`). */
const DEFAULT_POSTGRES_STORE_OPTIONS = Object.freeze({ migrate: true });

/** Schema of {@link PostgresStoreOptions}. */
const PostgresStoreOptionsSchema = optionsSchema({
  pool: methodsSchema<PostgresPool>("a pg Pool", "query", "connect"),
  tablePrefix: z.exactOptional(TABLE_PREFIX_SCHEMA),
  migrate: z.exactOptional(BOOLEAN_SCHEMA),
  clock: z.exactOptional(CLOCK_SCHEMA),
});

/**
 * A {@link SessionStore} on PostgreSQL, for workers on many machines: a row per session (the
 * tail, the head and its version, the lease) and a table of records keyed by session and
 * sequence number. An append is one statement that bumps the session's tail only where it is
 * still the expected one and inserts the record (the row lock orders concurrent appends; the
 * loser changes nothing); a head swap is a transaction that checks the version, replaces the
 * head and deletes the records it covers; a read is one statement, one snapshot. Every write
 * that resolved is committed (durable as the server's `synchronous_commit` makes it).
 *
 * @example
 * import pg from "pg";
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const session = await openSession(new PostgresStore({ pool }), "conversation-42", { contextLimit: 200_000 });
 */
export class PostgresStore implements SessionStore {
  readonly #pool: PostgresPool;
  readonly #table: ReturnType<typeof tableNames>;
  readonly #tablePrefix: string | undefined;
  readonly #migrate: boolean;
  readonly #clock: Clock;
  #migration: Promise<void> | undefined;

  /** @throws {ValidationError} naming each bad option (a bad `tablePrefix` too). */
  constructor(options: PostgresStoreOptions) {
    const parsed = parseOrThrow(PostgresStoreOptionsSchema, options ?? {}, "PostgresStoreOptions");
    this.#pool = parsed.pool;
    this.#table = tableNames(parsed.tablePrefix);
    this.#tablePrefix = parsed.tablePrefix;
    this.#migrate = parsed.migrate ?? DEFAULT_POSTGRES_STORE_OPTIONS.migrate;
    this.#clock = parsed.clock ?? systemClock;
  }

  async read(sessionId: string, after: number, knownVersion = -1): Promise<StoredState> {
    checkArguments(sessionId, { tail: after });
    const { sessions, log } = this.#table;
    const { rows } = await this.#query(
      // The head once (on the first row), and only when the caller does not hold it already.
      `SELECT s.tail, s.version, s.through, l.seq, l.record,
         CASE WHEN s.version <> $3 AND row_number() OVER (ORDER BY l.seq) = 1 THEN s.head END AS head
       FROM ${sessions} s
       LEFT JOIN ${log} l ON l.session_id = s.session_id AND l.seq > GREATEST($2::bigint, s.through)
       WHERE s.session_id = $1
       ORDER BY l.seq`,
      [sessionId, after, knownVersion],
      sessionId,
    );
    const first = rows[0];
    if (first === undefined) {
      const empty = { tail: 0, version: 0, through: 0, head: undefined, records: [] };
      return checkStoredState(sessionId, empty, after);
    }
    const state = {
      tail: toNumber(first["tail"]),
      version: toNumber(first["version"]),
      through: toNumber(first["through"]),
      head:
        first["head"] === null || first["head"] === undefined ? undefined : String(first["head"]),
      records: rows
        .filter((row) => row["seq"] !== null && row["seq"] !== undefined)
        .map((row) => ({ seq: toNumber(row["seq"]), data: String(row["record"]) })),
    };
    return checkStoredState(sessionId, state, after);
  }

  async append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult> {
    checkArguments(sessionId, expected);
    const { sessions, log } = this.#table;
    if (expected.tail === 0 && expected.version === 0) await this.#ensureRow(sessionId);
    const { rows } = await this.#query(
      `WITH bumped AS (
         UPDATE ${sessions} SET tail = tail + 1
         WHERE session_id = $1 AND tail = $2 AND version = $3
         RETURNING tail
       )
       INSERT INTO ${log} (session_id, seq, record) SELECT $1, tail, $4 FROM bumped RETURNING seq`,
      [sessionId, expected.tail, expected.version, String(data)],
      sessionId,
    );
    if (rows[0] !== undefined) return { appended: true, seq: toNumber(rows[0]["seq"]) };
    return { appended: false, state: await this.read(sessionId, expected.tail, expected.version) };
  }

  async swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean> {
    checkArguments(sessionId, { version: expectedVersion, through: head.through });
    const { sessions, log } = this.#table;
    return this.#guarded(sessionId, () =>
      inTransaction(this.#pool, async (client) => {
        const swapped = await client.query(
          `UPDATE ${sessions} SET version = version + 1, through = $3, head = $4
         WHERE session_id = $1 AND version = $2 AND through <= $3 AND tail >= $3
         RETURNING version`,
          [sessionId, expectedVersion, head.through, String(head.data)],
        );
        if (swapped.rows.length === 0) return false;
        await client.query(`DELETE FROM ${log} WHERE session_id = $1 AND seq <= $2`, [
          sessionId,
          head.through,
        ]);
        return true;
      }),
    );
  }

  /** Runs `task` after the migration; an error of the server or the pool becomes a `StoreError`. */
  async #guarded<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    try {
      await this.#migrated();
      return await task();
    } catch (error) {
      throw asStoreError(sessionId, error);
    }
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkArguments(sessionId);
    assertName(owner, "lease owner");
    assertCount(ttlMs, "lease ttlMs");
    const now = this.#clock().getTime();
    const { rows } = await this.#query(
      `INSERT INTO ${this.#table.sessions} AS s (session_id, lease_owner, lease_expires_at)
       VALUES ($1, $2, $3::bigint + $4::bigint)
       ON CONFLICT (session_id) DO UPDATE
         SET lease_owner = EXCLUDED.lease_owner, lease_expires_at = EXCLUDED.lease_expires_at
         WHERE s.lease_owner IS NULL OR s.lease_owner = EXCLUDED.lease_owner
           OR s.lease_expires_at <= $3::bigint
       RETURNING 1 AS held`,
      [sessionId, owner, now, ttlMs],
      sessionId,
    );
    return rows.length > 0;
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkArguments(sessionId);
    await this.#query(
      `UPDATE ${this.#table.sessions} SET lease_owner = NULL, lease_expires_at = NULL
       WHERE session_id = $1 AND lease_owner = $2`,
      [sessionId, String(owner)],
      sessionId,
    );
  }

  async getValue(sessionId: string, key: string): Promise<string | undefined> {
    checkArguments(sessionId);
    assertName(key, "key");
    const { rows } = await this.#query(
      `SELECT value FROM ${this.#table.values} WHERE session_id = $1 AND key = $2`,
      [sessionId, key],
      sessionId,
    );
    return rows[0] === undefined ? undefined : String(rows[0]["value"]);
  }

  async setValue(sessionId: string, key: string, value: string): Promise<void> {
    checkArguments(sessionId);
    assertName(key, "key");
    await this.#query(
      `INSERT INTO ${this.#table.values} (session_id, key, value) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, key) DO UPDATE SET value = EXCLUDED.value`,
      [sessionId, key, String(value)],
      sessionId,
    );
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkArguments(sessionId);
    const { sessions, log, values } = this.#table;
    await this.#query(
      `WITH records AS (DELETE FROM ${log} WHERE session_id = $1),
            entries AS (DELETE FROM ${values} WHERE session_id = $1)
       DELETE FROM ${sessions} WHERE session_id = $1`,
      [sessionId],
      sessionId,
    );
  }

  async #ensureRow(sessionId: string): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#table.sessions} (session_id) VALUES ($1) ON CONFLICT DO NOTHING`,
      [sessionId],
      sessionId,
    );
  }

  /** Runs one statement; an error of the server or the pool becomes a `StoreError` naming the session. */
  async #query(text: string, values: unknown[], sessionId: string) {
    try {
      await this.#migrated();
      return await this.#pool.query(text, values);
    } catch (error) {
      throw asStoreError(sessionId, error);
    }
  }

  /** Creates the tables once, on first use (again after a failed attempt). */
  #migrated(): Promise<void> {
    if (!this.#migrate) return Promise.resolve();
    this.#migration ??= migratePostgres(this.#pool, {
      ...(this.#tablePrefix === undefined ? {} : { tablePrefix: this.#tablePrefix }),
    }).catch((error: unknown) => {
      this.#migration = undefined;
      throw error;
    });
    return this.#migration;
  }
}
