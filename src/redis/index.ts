/**
 * `agent-compaction/redis`: a session store on Redis, for workers on many machines sharing
 * sessions. Needs the `redis` package (an optional peer dependency): pass a connected client.
 *
 * @example
 * import { createClient } from "redis";
 * import { openSession } from "agent-compaction/store";
 * import { RedisStore } from "agent-compaction/redis";
 *
 * const client = await createClient({ url: "redis://localhost:6379" }).connect();
 * const session = await openSession(new RedisStore({ client }), "conversation-42", {
 *   contextLimit: 200_000,
 * });
 *
 * @packageDocumentation
 */
export { type RedisCommandClient, RedisStore, type RedisStoreOptions } from "./redis-store.js";
