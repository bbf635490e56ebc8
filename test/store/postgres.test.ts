import pg from "pg";
import { afterAll, describe, inject, it } from "vitest";
import { PostgresStore } from "../../src/postgres/index.js";
import { startPostgres } from "../setup/servers.js";
import { storeContract } from "./store-contract.js";
import { restartMidAppend } from "./support/restart-mid-append.js";
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
