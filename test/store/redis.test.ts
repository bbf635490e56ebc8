import { createClient } from "redis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { RedisStore } from "../../src/redis/index.js";
import { SHAS } from "../../src/redis/redis-store.js";
import { StoreError } from "../../src/store/store-error.js";
import { startRedis } from "../setup/servers.js";
import { storeContract } from "./store-contract.js";
import { restartMidAppend } from "./support/restart-mid-append.js";
import { storeIoError } from "./support/store-io-error.js";
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
      await raw.lSet(`${prefix}{${sessionId}}:log`, seq - Number(meta["through"] ?? 0) - 1, data);
    },
    lose: async (sessionId, seq) => {
      const meta = await raw.hGetAll(`${prefix}{${sessionId}}:meta`);
      const log = `${prefix}{${sessionId}}:log`;
      await raw.lSet(log, seq - Number(meta["through"] ?? 0) - 1, "lost");
      await raw.lRem(log, 1, "lost");
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

describe("redis store: keys it did not write, a failing client", () => {
  const aboutStored = (sessionId: string, field: string) => (error: unknown) =>
    ValidationError.isInstance(error) &&
    error.message.includes(`stored session "${sessionId}"`) &&
    error.message.includes(field);
  const clients: Client[] = [];
  afterAll(() => {
    for (const client of clients) client.destroy();
  });
  const setup = async () => {
    const client = await connect(inject("redisUrl"));
    clients.push(client);
    const prefix = `raw-${Date.now()}-${clients.length}:`;
    const key = (sessionId: string, name: string) => `${prefix}{${sessionId}}:${name}`;
    return { client, key, store: new RedisStore({ client, prefix }) };
  };

  it("a key of the wrong type is a ValidationError naming the session, the server's error its cause", async () => {
    const { client, key, store } = await setup();
    await client.set(key("log-a-string", "log"), "not a list");
    const refused = store.append("log-a-string", { tail: 0, version: 0 }, "{}");
    await expect(refused).rejects.toSatisfy(aboutStored("log-a-string", "log: is a string"));
    await expect(refused).rejects.toSatisfy((error) => (error as Error).cause instanceof Error);
    await client.rPush(key("meta-a-list", "meta"), "not a hash");
    await expect(store.read("meta-a-list", 0)).rejects.toSatisfy(
      aboutStored("meta-a-list", "meta"),
    );
    await client.set(key("values-a-string", "values"), "not a hash");
    const read = store.getValue("values-a-string", "archive");
    await expect(read).rejects.toSatisfy(aboutStored("values-a-string", "values"));
    await expect(read).rejects.toSatisfy((error) =>
      String((error as Error).cause).includes("WRONGTYPE"),
    );
    await expect(store.setValue("values-a-string", "archive", "x")).rejects.toSatisfy(
      aboutStored("values-a-string", "values"),
    );
    await client.rPush(key("lease-a-list", "lease"), "not a hash");
    await expect(store.acquireLease("lease-a-list", "worker", 1000)).rejects.toSatisfy(
      aboutStored("lease-a-list", "lease"),
    );
  });

  it("a malformed field is a ValidationError naming the session and the field", async () => {
    const { client, key, store } = await setup();
    for (const [field, value] of [
      ["tail", "many"],
      ["tail", "1.5"],
      ["version", "-1"],
      ["through", "9"],
    ] as const) {
      const sessionId = `malformed-${field}-${value}`;
      await client.hSet(key(sessionId, "meta"), { tail: "2", version: "0", through: "0" });
      await client.rPush(key(sessionId, "log"), ["{}", "{}"]);
      await client.hSet(key(sessionId, "meta"), field, value);
      await expect(store.read(sessionId, 0)).rejects.toSatisfy(
        aboutStored(sessionId, `meta.${field}`),
      );
      await expect(store.append(sessionId, { tail: 2, version: 0 }, "{}")).rejects.toSatisfy(
        aboutStored(sessionId, `meta.${field}`),
      );
      await expect(store.swapHead(sessionId, 0, { through: 1, data: "{}" })).rejects.toSatisfy(
        aboutStored(sessionId, `meta.${field}`),
      );
    }
  });

  it("refuses bad options with a ValidationError naming the field", async () => {
    const { client } = await setup();
    const cases: [unknown, string][] = [
      [undefined, "client"],
      [{ client: {} }, "client"],
      [{ client, prefix: 7 }, "prefix"],
      [{ client, clock: "now" }, "clock"],
    ];
    for (const [options, field] of cases)
      expect(() => new RedisStore(options as never)).toThrow(
        expect.objectContaining({
          name: "ValidationError",
          message: expect.stringContaining(`Invalid RedisStoreOptions: ${field}: `),
        }),
      );
  });

  it("a client that fails is a StoreError naming the session, the client's error its cause", async () => {
    const { client, store } = await setup();
    client.destroy();
    const failed = store.read("closed-client", 0);
    await expect(failed).rejects.toSatisfy(
      storeIoError("closed-client", (cause) => cause instanceof Error),
    );
    await expect(store.setValue("closed-client", "key", "value")).rejects.toSatisfy(
      StoreError.isInstance,
    );
  });
});
