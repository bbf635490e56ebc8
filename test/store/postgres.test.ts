import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { PostgresStore } from "../../src/postgres/index.js";
import { StoreError } from "../../src/store/store-error.js";
import { startPostgres } from "../setup/servers.js";
import { storeContract } from "./store-contract.js";
import { restartMidAppend } from "./support/restart-mid-append.js";
import { storeIoError } from "./support/store-io-error.js";
import { startProxy, type TcpProxy } from "./support/tcp-proxy.js";

function poolFor(url: string, max = 2): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection that drops is discarded by the pool; queries on it fail on their own.
  pool.on("error", () => undefined);
  return pool;
}

storeContract("postgres", async () => {
  const url = inject("postgresUrl");
  const pools: pg.Pool[] = [];
  const proxies: TcpProxy[] = [];
  const open = async (options: { clock?: () => Date } = {}, at = url) => {
    const pool = poolFor(at);
    pools.push(pool);
    return new PostgresStore({ pool, ...options });
  };
  const raw = poolFor(url);
  pools.push(raw);
  return {
    open,
    dropping: async () => {
      // The connection is cut inside the head swap's transaction, after its UPDATE ran and as
      // its DELETE is sent: the server rolls the transaction back.
      const proxy = await startProxy(Number(new URL(url).port));
      proxies.push(proxy);
      const store = await open({}, `postgres://postgres@127.0.0.1:${proxy.port}/postgres`);
      const dropped = proxy.dropWhen((chunk) => chunk.includes("DELETE FROM agent_compaction_log"));
      return { store, dropped };
    },
    corrupt: async (sessionId, seq, data) => {
      await raw.query(
        "UPDATE agent_compaction_log SET record = $3 WHERE session_id = $1 AND seq = $2",
        [sessionId, seq, data],
      );
    },
    lose: async (sessionId, seq) => {
      await raw.query("DELETE FROM agent_compaction_log WHERE session_id = $1 AND seq = $2", [
        sessionId,
        seq,
      ]);
    },
    close: async () => {
      for (const proxy of proxies) await proxy.close();
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
});

describe("postgres store: the server restarted", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("mid-append leaves no half-written message, loses no acknowledged one, and the session loads", async () => {
    const server = await startPostgres();
    cleanups.push(() => server.remove());
    const openStore = async () => {
      const pool = poolFor(server.url);
      cleanups.push(() => pool.end());
      return new PostgresStore({ pool });
    };
    await restartMidAppend(server, openStore);
  });
});

describe("postgres store: rows it did not write, a failing server", () => {
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });
  const pool = () => {
    const opened = poolFor(inject("postgresUrl"));
    pools.push(opened);
    return opened;
  };

  it("a malformed row is a ValidationError naming the session and the field", async () => {
    const raw = pool();
    const store = new PostgresStore({ pool: raw });
    const sessionId = `malformed-${randomUUID()}`;
    for (let tail = 0; tail < 2; tail += 1)
      await store.append(sessionId, { tail, version: 0 }, "{}");
    await raw.query("UPDATE agent_compaction_sessions SET through = 5 WHERE session_id = $1", [
      sessionId,
    ]);
    const about = (error: unknown) =>
      ValidationError.isInstance(error) &&
      error.message.includes(`stored session "${sessionId}"`) &&
      error.message.includes("through");
    await expect(store.read(sessionId, 0)).rejects.toSatisfy(about);
    await expect(store.append(sessionId, { tail: 1, version: 0 }, "{}")).rejects.toSatisfy(about);
  });

  it("refuses bad options with a ValidationError naming the field", () => {
    const cases: [unknown, string][] = [
      [undefined, "pool"],
      [{ pool: { query: () => undefined } }, "pool"],
      [{ pool: pool(), migrate: "yes" }, "migrate"],
      [{ pool: pool(), clock: 0 }, "clock"],
      [{ pool: pool(), tablePrefix: "Bad-Prefix" }, "tablePrefix"],
    ];
    for (const [options, field] of cases)
      expect(() => new PostgresStore(options as never)).toThrow(
        expect.objectContaining({
          name: "ValidationError",
          message: expect.stringContaining(field),
        }),
      );
  });

  it("a PostgreSQL error is a StoreError naming the session, the server's error its cause", async () => {
    const store = new PostgresStore({
      pool: pool(),
      tablePrefix: "never_migrated",
      migrate: false,
    });
    const failed = store.read("no-tables", 0);
    await expect(failed).rejects.toSatisfy(
      storeIoError("no-tables", (cause) => String((cause as { code?: unknown }).code) === "42P01"),
    );
    for (const call of [
      () => store.append("no-tables", { tail: 0, version: 0 }, "{}"),
      () => store.swapHead("no-tables", 0, { through: 0, data: "{}" }),
      () => store.acquireLease("no-tables", "worker", 1000),
      () => store.releaseLease("no-tables", "worker"),
      () => store.getValue("no-tables", "key"),
      () => store.setValue("no-tables", "key", "value"),
      () => store.deleteSession("no-tables"),
    ])
      await expect(call()).rejects.toSatisfy(StoreError.isInstance);
  });
});
