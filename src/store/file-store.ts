import { createHash } from "node:crypto";
import { mkdir, open, readFile, rename, rm, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Clock, systemClock } from "../core/message-factory.js";
import { withFileLock } from "./file-lock.js";
import { storedDataError } from "./records.js";
import {
  type AppendResult,
  assertCount,
  assertName,
  checkArguments,
  type SessionStore,
  type StoredState,
  type StorePosition,
} from "./session-store.js";

/** Options of {@link FileStore}. */
export interface FileStoreOptions {
  /** The directory sessions are kept in (created when missing). */
  directory: string;
  /**
   * Flush each write to the disk before it resolves (`fsync` of the file and its directory),
   * so it survives a power loss, not only a crash of the process. @default true
   */
  fsync?: boolean;
  /** A lock file older than this is taken as its holder's crash and broken. @default 10000 */
  staleLockMs?: number;
  /** The clock leases expire by. @default the wall clock */
  clock?: Clock;
}

interface State {
  tail: number;
  version: number;
  through: number;
}

const EMPTY: State = { tail: 0, version: 0, through: 0 };

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";

/** A file or directory name for any session id: base64url, or a hash when that is too long. */
function fileName(sessionId: string): string {
  const encoded = Buffer.from(sessionId, "utf8").toString("base64url");
  if (encoded.length <= 160) return `s-${encoded}`;
  return `h-${createHash("sha256").update(sessionId).digest("hex")}`;
}

let temporaryCounter = 0;

/**
 * A {@link SessionStore} in files, for the workers of one machine (threads, processes): a
 * directory per session with a file per log record, the head and a small state file naming
 * the tail, the head's version and what it covers. Every write goes to a temporary file that
 * is flushed and renamed over the old one, and the state file's rename commits it, so a crash
 * at any point leaves the last committed state and no half-written record. Calls on one
 * session take turns through a lock file.
 *
 * @example
 * const store = new FileStore({ directory: "./sessions" });
 * const session = await openSession(store, "conversation-42", { contextLimit: 200_000 });
 */
export class FileStore implements SessionStore {
  readonly #directory: string;
  readonly #fsync: boolean;
  readonly #staleLockMs: number;
  readonly #clock: Clock;
  #created: Promise<unknown> | undefined;

  constructor(options: FileStoreOptions) {
    assertName(options?.directory, "FileStore directory");
    this.#directory = resolve(options.directory);
    this.#fsync = options.fsync ?? true;
    this.#staleLockMs = options.staleLockMs ?? 10_000;
    this.#clock = options.clock ?? systemClock;
  }

  read(sessionId: string, after: number, knownVersion = -1): Promise<StoredState> {
    checkArguments(sessionId, { tail: after });
    return this.#locked(sessionId, async (dir) =>
      this.#read(sessionId, dir, await this.#state(sessionId, dir), after, knownVersion),
    );
  }

  append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult> {
    checkArguments(sessionId, expected);
    return this.#locked(sessionId, async (dir): Promise<AppendResult> => {
      const state = await this.#state(sessionId, dir);
      if (state.tail !== expected.tail || state.version !== expected.version) {
        const missed = await this.#read(sessionId, dir, state, expected.tail, expected.version);
        return { appended: false, state: missed };
      }
      const seq = state.tail + 1;
      await mkdir(join(dir, "log"), { recursive: true });
      await this.#write(join(dir, "log", `${seq}.json`), String(data));
      await this.#sync(join(dir, "log"));
      await this.#commit(dir, { ...state, tail: seq });
      return { appended: true, seq };
    });
  }

  swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean> {
    checkArguments(sessionId, { version: expectedVersion, through: head.through });
    return this.#locked(sessionId, async (dir) => {
      const state = await this.#state(sessionId, dir);
      if (state.version !== expectedVersion) return false;
      if (head.through < state.through || head.through > state.tail) return false;
      const version = state.version + 1;
      await mkdir(dir, { recursive: true });
      await this.#write(join(dir, `head-${version}.json`), String(head.data));
      await this.#commit(dir, { tail: state.tail, version, through: head.through });
      // Committed: what the new head replaces is garbage now (a crash here leaves it unread).
      const garbage = [join(dir, `head-${state.version}.json`)];
      for (let seq = state.through + 1; seq <= head.through; seq += 1)
        garbage.push(join(dir, "log", `${seq}.json`));
      await Promise.all(garbage.map((path) => unlink(path).catch(() => undefined)));
      return true;
    });
  }

  acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkArguments(sessionId);
    assertName(owner, "lease owner");
    assertCount(ttlMs, "lease ttlMs");
    return this.#locked(sessionId, async (dir) => {
      const path = join(dir, "lease.json");
      const lease = await this.#json<{ owner: string; expiresAt: number }>(
        sessionId,
        path,
        "lease",
      );
      const now = this.#clock().getTime();
      if (lease !== undefined && lease.owner !== owner && lease.expiresAt > now) return false;
      await mkdir(dir, { recursive: true });
      await this.#write(path, JSON.stringify({ owner, expiresAt: now + ttlMs }));
      await this.#sync(dir);
      return true;
    });
  }

  releaseLease(sessionId: string, owner: string): Promise<void> {
    checkArguments(sessionId);
    return this.#locked(sessionId, async (dir) => {
      const path = join(dir, "lease.json");
      const lease = await this.#json<{ owner: string }>(sessionId, path, "lease");
      if (lease?.owner === owner) await unlink(path).catch(() => undefined);
    });
  }

  getValue(sessionId: string, key: string): Promise<string | undefined> {
    checkArguments(sessionId);
    assertName(key, "key");
    return this.#locked(sessionId, async (dir) => {
      const values = await this.#json<Record<string, string>>(
        sessionId,
        join(dir, "values.json"),
        "values",
      );
      return values !== undefined && Object.hasOwn(values, key) ? values[key] : undefined;
    });
  }

  setValue(sessionId: string, key: string, value: string): Promise<void> {
    checkArguments(sessionId);
    assertName(key, "key");
    return this.#locked(sessionId, async (dir) => {
      const path = join(dir, "values.json");
      const values = (await this.#json<Record<string, string>>(sessionId, path, "values")) ?? {};
      values[key] = String(value);
      await mkdir(dir, { recursive: true });
      await this.#write(path, JSON.stringify(values));
      await this.#sync(dir);
    });
  }

  deleteSession(sessionId: string): Promise<void> {
    checkArguments(sessionId);
    return this.#locked(sessionId, (dir) => rm(dir, { recursive: true, force: true }));
  }

  /** Runs `task` on the session's directory, holding its lock. */
  async #locked<T>(sessionId: string, task: (dir: string) => Promise<T>): Promise<T> {
    this.#created ??= mkdir(this.#directory, { recursive: true });
    await this.#created;
    const name = fileName(sessionId);
    const lock = join(this.#directory, `${name}.lock`);
    return withFileLock(lock, this.#staleLockMs, () => task(join(this.#directory, name)));
  }

  /** The head and the records after `max(after, through)` of `state` (holding the lock). */
  async #read(
    sessionId: string,
    dir: string,
    state: State,
    after: number,
    knownVersion: number,
  ): Promise<StoredState> {
    const head =
      state.version === 0 || state.version === knownVersion
        ? undefined
        : await this.#text(join(dir, `head-${state.version}.json`));
    const records = [];
    for (let seq = Math.max(after, state.through) + 1; seq <= state.tail; seq += 1) {
      const data = await this.#text(join(dir, "log", `${seq}.json`));
      if (data === undefined) {
        throw storedDataError(sessionId, ["log", seq], [{ path: [], message: "is missing" }]);
      }
      records.push({ seq, data });
    }
    return { ...state, head, records };
  }

  async #state(sessionId: string, dir: string): Promise<State> {
    const state = await this.#json<State>(sessionId, join(dir, "state.json"), "state");
    if (state === undefined) return EMPTY;
    for (const key of ["tail", "version", "through"] as const) {
      const value = state[key];
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
        throw storedDataError(
          sessionId,
          ["state", key],
          [{ path: [], message: "must be a whole number ≥ 0" }],
        );
      }
    }
    return { tail: state.tail, version: state.version, through: state.through };
  }

  async #text(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async #json<T>(sessionId: string, path: string, field: string): Promise<T | undefined> {
    const text = await this.#text(path);
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as T;
    } catch {
      // Reported below.
    }
    throw storedDataError(sessionId, [field], [{ path: [], message: "is not a JSON object" }]);
  }

  /** Writes `path` whole: a temporary file, flushed, renamed over it. */
  async #write(path: string, data: string): Promise<void> {
    temporaryCounter += 1;
    const temporary = `${path}.${process.pid}.${temporaryCounter}.tmp`;
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(data);
      if (this.#fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  }

  /** Commits a new state: the rename of the state file is the instant the write takes effect. */
  async #commit(dir: string, state: State): Promise<void> {
    await this.#write(join(dir, "state.json"), JSON.stringify(state));
    await this.#sync(dir);
  }

  async #sync(dir: string): Promise<void> {
    if (!this.#fsync) return;
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
