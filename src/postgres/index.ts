/**
 * `agent-compaction/postgres`: a session store on PostgreSQL, for workers on many machines
 * sharing sessions. Needs the `pg` package (an optional peer dependency): pass a Pool. The
 * tables are created on first use, or by `migratePostgres` / the SQL of `postgresMigration`.
 *
 * @example
 * import pg from "pg";
 * import { openSession } from "agent-compaction/store";
 * import { PostgresStore } from "agent-compaction/postgres";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const session = await openSession(new PostgresStore({ pool }), "conversation-42", {
 *   contextLimit: 200_000,
 * });
 *
 * @packageDocumentation
 */
export {
  DEFAULT_TABLE_PREFIX,
  migratePostgres,
  type PostgresClient,
  type PostgresPool,
  type PostgresQueryable,
  postgresMigration,
} from "./migration.js";
export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
