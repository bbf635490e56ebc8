import { createClient } from "redis";
import { afterAll, describe, inject, it } from "vitest";
import { RedisStore } from "../../src/redis/index.js";
import { SHAS } from "../../src/redis/redis-store.js";
import { startRedis } from "../setup/servers.js";
import { storeContract } from "./store-contract.js";
import { restartMidAppend } from "./support/restart-mid-append.js";
import { startProxy, type TcpProxy } from "./support/tcp-proxy.js";

async function connect(url: string) {
  const client = createClient({ url });
  // Connection errors reach the commands that fail; the client reconnects by itself.
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

type Client = Awaited<ReturnType<typeof connect>>;

storeContract("redis", async () => {
  const url = inject("redisUrl");
  const prefix = `test-${Date.now()}:`;
  const clients: Client[] = [];
  const proxies: TcpProxy[] = [];
  const open = async (options: { clock?: () => Date } = {}, at = url) => {
    const client = await connect(at);
    clients.push(client);
    return new RedisStore({ client, prefix, ...options });
  };
  const raw = await connect(url);
  clients.push(raw);
  return {
    open,
    dropping: async () => {
      // The connection is cut as the head swap's script is sent: Redis never runs it.
      const proxy = await startProxy(Number(new URL(url).port));
      proxies.push(proxy);
      const store = await open({}, `redis://127.0.0.1:${proxy.port}`);
      const dropped = proxy.dropWhen((chunk) => chunk.includes(SHAS.SWAP_HEAD));
      return { store, dropped };
    },
    corrupt: async (sessionId, seq, data) => {
      const meta = await raw.hGetAll(`${prefix}{${sessionId}}:meta`);
      await raw.lSet(`${prefix}{${sessionId}}:log`, seq - Number(meta.through ?? 0) - 1, data);
    },
    close: async () => {
      for (const client of clients) client.destroy();
      for (const proxy of proxies) await proxy.close();
    },
  };
});

describe("redis store: the server restarted", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("mid-append leaves no half-written message, loses no acknowledged one, and the session loads", async () => {
    const server = await startRedis();
    cleanups.push(() => server.remove());
    const openStore = async () => {
      const client = await connect(server.url);
      cleanups.push(async () => client.destroy());
      return new RedisStore({ client });
    };
    await restartMidAppend(server, openStore);
  });
});
