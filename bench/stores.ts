/**
 * Session stores under load: appends per second and compactions per second with 1 and 8
 * concurrent workers, on each store (memory, file, Redis, PostgreSQL). Redis and PostgreSQL
 * are real servers started here on loopback (as the tests start them), with their durable
 * settings: Redis with an append-only file flushed every second (`appendfsync everysec`, its
 * default) and every write (`always`), PostgreSQL with `fsync` on; the file store flushes each
 * write (`fsync: true`, its default).
 *
 *   npx tsx bench/stores.ts            the table
 *   npx tsx bench/stores.ts --quick    fewer operations (a smoke run)
 *
 * Appends: `addUserText`, each persisted before the next; 8 workers write to one session (the
 * contended case: every append is a compare-and-swap on the log's tail) or each to a session
 * of its own. Compactions: `forceCompact` of a 20-turn session (a summarizer that answers at
 * once), one session per compaction, the 8 workers on sessions of their own.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { createClient } from "redis";
import { LLMCompactor } from "../src/compactors/llm-compactor.js";
import { FileStore } from "../src/file-store/file-store.js";
import { PostgresStore } from "../src/postgres/index.js";
import { RedisStore } from "../src/redis/index.js";
import { MemoryStore } from "../src/store/memory-store.js";
import type { SessionStore } from "../src/store/session-store.js";
import { openSession } from "../src/store/stored-session.js";
import { startPostgres, startRedis, type TestServer } from "../test/setup/servers.js";
import { renderTable } from "./format.js";

/** One store to measure: a store per worker, and how to let go of everything afterwards. */
interface StoreUnderTest {
  name: string;
  open(): Promise<SessionStore>;
  close(): Promise<void>;
}

/** One line of the table. */
export interface StoreRow {
  store: string;
  workers: number;
  /** Appends per second, every worker on one session. */
  appendsShared: number;
  /** Appends per second, each worker on a session of its own. */
  appendsOwn: number;
  compactions: number;
}

export const STORE_HEADERS = [
  "store",
  "workers",
  "appends/s (one session)",
  "appends/s (a session each)",
  "compactions/s",
] as const;

const newId = (label: string) => `bench-${label}-${randomUUID()}`;

async function timed(task: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await task();
  return (performance.now() - start) / 1000;
}

/** Appends per second: `total` appends by `workers` workers, on one session or one each. */
async function appends(store: StoreUnderTest, workers: number, total: number, shared: boolean) {
  const id = newId("appends");
  const sessions = await Promise.all(
    Array.from({ length: workers }, async (_, index) =>
      openSession(await store.open(), shared ? id : `${id}-${index}`, {
        contextLimit: 10_000_000,
        compactor: false,
      }),
    ),
  );
  const each = Math.ceil(total / workers);
  const seconds = await timed(async () => {
    await Promise.all(
      sessions.map(async (session, worker) => {
        for (let index = 0; index < each; index += 1)
          await session.addUserText(
            `worker ${worker}, message ${index}: ${"some detail ".repeat(20)}`,
          );
      }),
    );
  });
  return (each * workers) / seconds;
}

/** Compactions per second: each worker fills its own sessions and compacts them, one after another. */
async function compactions(store: StoreUnderTest, workers: number, total: number) {
  const options = {
    contextLimit: 200_000,
    compactor: false as const,
    llmCompactor: new LLMCompactor(
      { complete: async () => "The user asked for twenty changes; all are done." },
      { keepRecentTurns: 2 },
    ),
  };
  const each = Math.ceil(total / workers);
  const prepared = await Promise.all(
    Array.from({ length: workers * each }, async () => {
      const session = await openSession(await store.open(), newId("compact"), options);
      for (let turn = 1; turn <= 20; turn += 1) {
        await session.addUserText(
          `change ${turn}: ${"rename the field and update callers ".repeat(5)}`,
        );
        await session.addAssistant([
          { type: "text", text: `done ${turn} ${"edited files ".repeat(10)}` },
        ]);
      }
      return session;
    }),
  );
  const seconds = await timed(async () => {
    await Promise.all(
      Array.from({ length: workers }, async (_, worker) => {
        for (const session of prepared.slice(worker * each, (worker + 1) * each))
          await session.forceCompact();
      }),
    );
  });
  return prepared.length / seconds;
}

async function redisStore(fsync: "always" | "everysec"): Promise<StoreUnderTest> {
  const server = await startRedis({ fsync });
  const clients: { destroy(): void }[] = [];
  return {
    name: `redis (appendfsync ${fsync})`,
    open: async () => {
      const client = createClient({ url: server.url });
      client.on("error", () => undefined);
      await client.connect();
      clients.push(client);
      return new RedisStore({ client });
    },
    close: async () => {
      for (const client of clients) client.destroy();
      await server.remove();
    },
  };
}

async function postgresStore(): Promise<StoreUnderTest> {
  const server: TestServer = await startPostgres({ fsync: true });
  const pools: pg.Pool[] = [];
  return {
    name: "postgres (fsync on)",
    open: async () => {
      const pool = new pg.Pool({ connectionString: server.url, max: 2 });
      pool.on("error", () => undefined);
      pools.push(pool);
      return new PostgresStore({ pool });
    },
    close: async () => {
      await Promise.all(pools.map((pool) => pool.end()));
      await server.remove();
    },
  };
}

function fileStore(): StoreUnderTest {
  const directory = mkdtempSync(join(tmpdir(), "agent-compaction-bench-"));
  return {
    name: "file (fsync)",
    open: async () => new FileStore({ directory }),
    close: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

function memoryStore(): StoreUnderTest {
  const store = new MemoryStore();
  return { name: "memory", open: async () => store, close: async () => undefined };
}

/** Measures every store; `quick` does fewer operations. */
export async function measureStores(quick = false): Promise<StoreRow[]> {
  const total = quick ? 80 : 400;
  const compactionsTotal = quick ? 8 : 40;
  const makers = [
    async () => memoryStore(),
    async () => fileStore(),
    () => redisStore("everysec"),
    () => redisStore("always"),
    () => postgresStore(),
  ];
  const rows: StoreRow[] = [];
  for (const make of makers) {
    const store = await make();
    try {
      for (const workers of [1, 8]) {
        rows.push({
          store: store.name,
          workers,
          appendsShared: await appends(store, workers, total, true),
          appendsOwn: await appends(store, workers, total, false),
          compactions: await compactions(store, workers, compactionsTotal),
        });
      }
    } finally {
      await store.close();
    }
  }
  return rows;
}

/** The rows as table cells. */
export function storeRows(rows: readonly StoreRow[]): string[][] {
  const rate = (value: number) => String(Math.round(value));
  return rows.map((row) => [
    row.store,
    String(row.workers),
    rate(row.appendsShared),
    rate(row.appendsOwn),
    rate(row.compactions),
  ]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = await measureStores(process.argv.includes("--quick"));
  console.log(renderTable(STORE_HEADERS, storeRows(rows)));
}
