import { type Clock, systemClock } from "../core/message-factory.js";
import {
  type AppendResult,
  assertCount,
  assertName,
  checkArguments,
  checkStoredState,
  type SessionStore,
  type StoredState,
  type StorePosition,
} from "./session-store.js";

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock leases expire by. @default the wall clock */
  clock?: Clock;
}

interface Entry {
  tail: number;
  version: number;
  through: number;
  head: string | undefined;
  /** Records `through + 1 … tail`. */
  records: string[];
  lease: { owner: string; expiresAt: number } | undefined;
  values: Map<string, string>;
}

/**
 * A {@link SessionStore} in this process's memory, the default: workers that share the
 * instance (concurrent requests, background jobs) share sessions, linearizably (each call
 * takes effect at one instant); nothing survives the process.
 *
 * @example
 * const store = new MemoryStore();
 * const session = await openSession(store, "conversation-42", { contextLimit: 200_000 });
 */
export class MemoryStore implements SessionStore {
  #sessions = new Map<string, Entry>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  /** A store on this one's sessions whose leases expire by `clock` (a worker with its own clock). */
  withClock(clock: Clock): MemoryStore {
    const view = new MemoryStore({ clock });
    view.#sessions = this.#sessions;
    return view;
  }

  async read(sessionId: string, after: number, knownVersion = -1): Promise<StoredState> {
    checkArguments(sessionId, { tail: after });
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined) {
      const empty = { tail: 0, version: 0, through: 0, head: undefined, records: [] };
      return checkStoredState(sessionId, empty, after);
    }
    const from = Math.max(after, entry.through);
    const state = {
      tail: entry.tail,
      version: entry.version,
      through: entry.through,
      head: entry.version === knownVersion ? undefined : entry.head,
      records: entry.records
        .slice(from - entry.through)
        .map((data, index) => ({ seq: from + index + 1, data })),
    };
    return checkStoredState(sessionId, state, after);
  }

  async append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult> {
    checkArguments(sessionId, expected);
    const entry = this.#entry(sessionId);
    if (entry.tail !== expected.tail || entry.version !== expected.version) {
      const state = await this.read(sessionId, expected.tail, expected.version);
      return { appended: false, state };
    }
    entry.records.push(String(data));
    entry.tail += 1;
    return { appended: true, seq: entry.tail };
  }

  async swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean> {
    checkArguments(sessionId, { version: expectedVersion, through: head.through });
    const entry = this.#entry(sessionId);
    if (entry.version !== expectedVersion) return false;
    if (head.through < entry.through || head.through > entry.tail) return false;
    entry.records.splice(0, head.through - entry.through);
    entry.head = String(head.data);
    entry.through = head.through;
    entry.version += 1;
    return true;
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkArguments(sessionId);
    assertName(owner, "lease owner");
    assertCount(ttlMs, "lease ttlMs");
    const entry = this.#entry(sessionId);
    const now = this.#clock().getTime();
    const { lease } = entry;
    if (lease !== undefined && lease.owner !== owner && lease.expiresAt > now) return false;
    entry.lease = { owner, expiresAt: now + ttlMs };
    return true;
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkArguments(sessionId);
    const entry = this.#sessions.get(sessionId);
    if (entry?.lease?.owner === owner) entry.lease = undefined;
  }

  async getValue(sessionId: string, key: string): Promise<string | undefined> {
    checkArguments(sessionId);
    assertName(key, "key");
    return this.#sessions.get(sessionId)?.values.get(key);
  }

  async setValue(sessionId: string, key: string, value: string): Promise<void> {
    checkArguments(sessionId);
    assertName(key, "key");
    this.#entry(sessionId).values.set(key, String(value));
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkArguments(sessionId);
    this.#sessions.delete(sessionId);
  }

  #entry(sessionId: string): Entry {
    let entry = this.#sessions.get(sessionId);
    if (entry === undefined) {
      entry = {
        tail: 0,
        version: 0,
        through: 0,
        head: undefined,
        records: [],
        lease: undefined,
        values: new Map(),
      };
      this.#sessions.set(sessionId, entry);
    }
    return entry;
  }
}
