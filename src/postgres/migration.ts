import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";

/** What the store needs of a query runner: `query`, as a `pg` Pool or client has it. */
export interface PostgresQueryable {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount?: number | null }>;
}

/** What the store needs of a pool: `query`, and `connect` for a transaction's client (a `pg` Pool). */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresClient>;
}

/** A client checked out of the pool for a transaction (a `pg` PoolClient). */
export interface PostgresClient extends PostgresQueryable {
  release(error?: Error | boolean): void;
  /** Where a checked-out client reports a connection lost between queries. */
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Runs `task` on a client of `pool` inside a transaction: committed when it resolves to
 * `true` (or nothing), rolled back when it resolves to `false` or throws. A client whose
 * connection failed is discarded, not reused.
 */
export async function inTransaction(
  pool: PostgresPool,
  task: (client: PostgresQueryable) => Promise<boolean | undefined>,
): Promise<boolean> {
  const client = await pool.connect();
  // A connection lost while the client is out of the pool fails the running query; the
  // client's own error event must not go unheard (an unhandled error ends the process).
  const ignore = () => undefined;
  client.on?.("error", ignore);
  let failure: Error | undefined;
  try {
    await client.query("BEGIN");
    const commit = (await task(client)) !== false;
    await client.query(commit ? "COMMIT" : "ROLLBACK");
    return commit;
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.removeListener?.("error", ignore);
    client.release(failure);
  }
}

/** The default prefix of the store's table names. */
export const DEFAULT_TABLE_PREFIX = "agent_compaction";

/** A prefix of the store's table names: a plain lowercase SQL identifier. */
export const TABLE_PREFIX_SCHEMA = z
  .string({ error: "must be a string" })
  .check(
    z.regex(
      /^[a-z_][a-z0-9_]{0,40}$/,
      "must be a lowercase SQL identifier (a-z, 0-9, _), at most 41 characters",
    ),
  );

/** The store's table names for a prefix. @throws {ValidationError} unless it is a plain SQL identifier. */
export function tableNames(prefix: string = DEFAULT_TABLE_PREFIX) {
  parseOrThrow(TABLE_PREFIX_SCHEMA, prefix, "PostgresStore tablePrefix");
  return {
    sessions: `${prefix}_sessions`,
    log: `${prefix}_log`,
    values: `${prefix}_values`,
  };
}

/**
 * The SQL that creates the store's tables (idempotent: `IF NOT EXISTS`), for a migration tool
 * of your own; `PostgresStore` runs it on first use unless told not to (`migrate: false`).
 * - `<prefix>_sessions`: a row per session: the log's tail, the head (its version, the records
 *   it covers, its data), the lease.
 * - `<prefix>_log`: the records after the head, keyed by session and sequence number.
 * - `<prefix>_values`: the key/value area.
 */
export function postgresMigration(tablePrefix: string = DEFAULT_TABLE_PREFIX): string {
  const table = tableNames(tablePrefix);
  return `
CREATE TABLE IF NOT EXISTS ${table.sessions} (
  session_id text PRIMARY KEY,
  tail bigint NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0,
  through bigint NOT NULL DEFAULT 0,
  head text,
  lease_owner text,
  lease_expires_at bigint
);
CREATE TABLE IF NOT EXISTS ${table.log} (
  session_id text NOT NULL,
  seq bigint NOT NULL,
  record text NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS ${table.values} (
  session_id text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (session_id, key)
);`;
}

/**
 * Creates the store's tables if they are missing, in one transaction under an advisory lock
 * (so workers starting together do not race).
 */
export async function migratePostgres(
  pool: PostgresPool,
  options: { tablePrefix?: string } = {},
): Promise<void> {
  const sql = postgresMigration(options.tablePrefix);
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('agent-compaction migration'))");
    await client.query(sql);
    return true;
  });
}
