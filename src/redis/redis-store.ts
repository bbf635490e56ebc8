import { createHash } from "node:crypto";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import { type Clock, systemClock } from "../core/message-factory.js";
import {
  CLOCK_SCHEMA,
  methodsSchema,
  optionsSchema,
  STRING_SCHEMA,
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
  storedStateError,
} from "../store/session-store.js";
import { StoreError } from "../store/store-error.js";
import { ACQUIRE_LEASE, APPEND, READ, RELEASE_LEASE, SWAP_HEAD } from "./scripts.js";

/**
 * What the store needs of a Redis client: `sendCommand`, as a connected `redis` (node-redis)
 * client has it (`createClient({ url })` then `await client.connect()`).
 */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** A connected client of the `redis` package; the store never closes it. */
  client: RedisCommandClient;
  /** Prefix of every key the store writes. @default "agent-compaction:" */
  prefix?: string;
  /** The clock leases expire by (the workers' clocks, not the server's). @default the wall clock */
  clock?: Clock;
}

const sha1 = (script: string) => createHash("sha1").update(script).digest("hex");

const SCRIPTS = { READ, APPEND, SWAP_HEAD, ACQUIRE_LEASE, RELEASE_LEASE } as const;
export const SHAS = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, script]) => [name, sha1(script)]),
) as Record<keyof typeof SCRIPTS, string>;

const toNumber = (value: unknown) => Number(value ?? 0);
const toText = (value: unknown) =>
  value === null || value === undefined ? undefined : String(value);

/** The state from a script's reply {tail, version, through, head|nil, records…}, checked. */
function toState(sessionId: string, reply: unknown, after: number): StoredState {
  if (!Array.isArray(reply)) {
    throw storedStateError(sessionId, [], `came back as ${typeof reply}, not the state's list`);
  }
  const [tail, version, through, head] = reply;
  const first = Math.max(after, toNumber(through)) + 1;
  const state = {
    tail: toNumber(tail),
    version: toNumber(version),
    through: toNumber(through),
    head: toText(head),
    records: reply.slice(4).map((data, index) => ({ seq: first + index, data: String(data) })),
  };
  return checkStoredState(sessionId, state, after);
}

const BAD_DATA = "AC_BADDATA ";

/**
 * A Redis error as a typed one naming the session: data the scripts refused (`AC_BADDATA`) or
 * a key of the wrong type (`WRONGTYPE`) are bad stored data; anything else the server or the
 * client failed.
 */
function typedError(sessionId: string, error: unknown, key: string): Error {
  const message = String((error as { message?: unknown } | null)?.message ?? error);
  if (message.startsWith(BAD_DATA)) {
    const field = message.slice(BAD_DATA.length).split(" ", 1)[0]!;
    const end = message.indexOf(" script: ");
    const problem = message.slice(BAD_DATA.length + field.length + 1, end < 0 ? undefined : end);
    return storedStateError(sessionId, field.split("."), problem, error);
  }
  if (message.startsWith("WRONGTYPE")) {
    return storedStateError(
      sessionId,
      [key],
      `holds a value of the wrong type (${message})`,
      error,
    );
  }
  return new StoreError("io_error", sessionId, message, { cause: error });
}

/** Defaults of {@link RedisStoreOptions}. */
const DEFAULT_REDIS_STORE_OPTIONS = Object.freeze({ prefix: "agent-compaction:" });

/** Schema of {@link RedisStoreOptions}. */
const RedisStoreOptionsSchema = optionsSchema({
  client: methodsSchema<RedisCommandClient>(
    "a connected client of the `redis` package",
    "sendCommand",
  ),
  prefix: z.exactOptional(STRING_SCHEMA),
  clock: z.exactOptional(CLOCK_SCHEMA),
});

/**
 * A {@link SessionStore} on Redis, for workers on many machines: per session a list of
 * records, a hash with the tail, the head's version and what it covers, and the head. Each
 * operation is one Lua script, which Redis runs atomically (so every write is a
 * compare-and-swap and every read one consistent state). Durable as the server is: with
 * `appendonly yes` and `appendfsync always`, every write that resolved survives a crash of
 * the server; with `everysec`, up to a second of them may not.
 *
 * @example
 * import { createClient } from "redis";
 * const client = await createClient({ url: "redis://localhost:6379" }).connect();
 * const session = await openSession(new RedisStore({ client }), "conversation-42", { contextLimit: 200_000 });
 */
export class RedisStore implements SessionStore {
  readonly #client: RedisCommandClient;
  readonly #prefix: string;
  readonly #clock: Clock;

  /** @throws {ValidationError} naming each bad option. */
  constructor(options: RedisStoreOptions) {
    const parsed = parseOrThrow(RedisStoreOptionsSchema, options ?? {}, "RedisStoreOptions");
    this.#client = parsed.client;
    this.#prefix = parsed.prefix ?? DEFAULT_REDIS_STORE_OPTIONS.prefix;
    this.#clock = parsed.clock ?? systemClock;
  }

  async read(sessionId: string, after: number, knownVersion = -1): Promise<StoredState> {
    checkArguments(sessionId, { tail: after });
    const reply = await this.#run(
      sessionId,
      "READ",
      ["meta", "head", "log"],
      [String(after), String(knownVersion)],
    );
    return toState(sessionId, reply, after);
  }

  async append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult> {
    checkArguments(sessionId, expected);
    const reply = await this.#run(
      sessionId,
      "APPEND",
      ["meta", "head", "log"],
      [String(expected.tail), String(expected.version), String(data)],
    );
    const seq = toNumber(Array.isArray(reply) ? reply[0] : reply);
    if (seq > 0) return { appended: true, seq };
    const state = toState(sessionId, Array.isArray(reply) ? reply.slice(1) : reply, expected.tail);
    return { appended: false, state };
  }

  async swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean> {
    checkArguments(sessionId, { version: expectedVersion, through: head.through });
    const swapped = await this.#run(
      sessionId,
      "SWAP_HEAD",
      ["meta", "head", "log"],
      [String(expectedVersion), String(head.through), String(head.data)],
    );
    return toNumber(swapped) === 1;
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkArguments(sessionId);
    assertName(owner, "lease owner");
    assertCount(ttlMs, "lease ttlMs");
    const now = this.#clock().getTime();
    const held = await this.#run(
      sessionId,
      "ACQUIRE_LEASE",
      ["lease"],
      [owner, String(now), String(ttlMs)],
    );
    return toNumber(held) === 1;
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkArguments(sessionId);
    await this.#run(sessionId, "RELEASE_LEASE", ["lease"], [String(owner)]);
  }

  async getValue(sessionId: string, key: string): Promise<string | undefined> {
    checkArguments(sessionId);
    assertName(key, "key");
    const [values] = this.#keys(sessionId, "values");
    return toText(await this.#send(sessionId, "values", ["HGET", values!, key]));
  }

  async setValue(sessionId: string, key: string, value: string): Promise<void> {
    checkArguments(sessionId);
    assertName(key, "key");
    const [values] = this.#keys(sessionId, "values");
    await this.#send(sessionId, "values", ["HSET", values!, key, String(value)]);
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkArguments(sessionId);
    const keys = this.#keys(sessionId, "meta", "head", "log", "lease", "values");
    await this.#send(sessionId, "", ["DEL", ...keys]);
  }

  /** The session's keys; the braces make them one hash slot on a cluster. */
  #keys(sessionId: string, ...names: string[]): string[] {
    return names.map((name) => `${this.#prefix}{${sessionId}}:${name}`);
  }

  /** Sends one command; an error becomes a typed one naming the session (and `key`, on WRONGTYPE). */
  async #send(sessionId: string, key: string, args: string[]): Promise<unknown> {
    try {
      return await this.#client.sendCommand(args);
    } catch (error) {
      throw typedError(sessionId, error, key);
    }
  }

  /** Runs a script by its hash on the session's keys `names`, loading it on first use (or after the server lost it). */
  async #run(
    sessionId: string,
    name: keyof typeof SCRIPTS,
    names: string[],
    args: string[],
  ): Promise<unknown> {
    const keys = this.#keys(sessionId, ...names);
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.#client.sendCommand(["EVALSHA", SHAS[name], ...tail]);
    } catch (error) {
      if (!String((error as { message?: unknown })?.message).startsWith("NOSCRIPT"))
        throw typedError(sessionId, error, names.join("|"));
    }
    return this.#send(sessionId, names.join("|"), ["EVAL", SCRIPTS[name], ...tail]);
  }
}
