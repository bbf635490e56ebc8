import { createHash } from "node:crypto";
import { mkdir, rm, unlink } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import * as z from "zod/mini";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { type Clock, systemClock } from "../core/message-factory.js";
import {
  BOOLEAN_SCHEMA,
  CLOCK_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  optionsSchema,
  TimerMillisecondsSchema,
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
import { LinkRefused, readText, realDirectory, syncDirectory, writeWhole } from "./file-io.js";
import { type HeldLock, withFileLock } from "./file-lock.js";

/** Options of {@link FileStore}. */
export interface FileStoreOptions {
  /** The directory sessions are kept in (created when missing). */
  directory: string;
  /**
   * Flush each write to the disk before it resolves (`fsync` of the file and its directory),
   * so it survives a power loss, not only a crash of the process. @default true
   */
  fsync?: boolean;
  /**
   * A lock file its holder has not refreshed for this long (it refreshes it every third of
   * it) is taken as its holder's crash and broken: a whole number of milliseconds, 1 to
   * 2^31−1. A holder that stalls longer loses the lock, and its call fails with a `StoreError`
   * (`lock_lost`) before it commits anything. @default 10000
   */
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

/** Defaults of {@link FileStoreOptions}. */
const DEFAULT_FILE_STORE_OPTIONS = Object.freeze({ fsync: true, staleLockMs: 10_000 });

/** Schema of {@link FileStoreOptions}. */
const FileStoreOptionsSchema = optionsSchema({
  directory: NON_EMPTY_STRING_SCHEMA,
  fsync: z.exactOptional(BOOLEAN_SCHEMA),
  staleLockMs: z.exactOptional(TimerMillisecondsSchema),
  clock: z.exactOptional(CLOCK_SCHEMA),
});

/** A file or directory name for any session id: base64url, or a hash when that is too long. */
function fileName(sessionId: string): string {
  const encoded = Buffer.from(sessionId, "utf8").toString("base64url");
  if (encoded.length <= 160) return `s-${encoded}`;
  return `h-${createHash("sha256").update(sessionId).digest("hex")}`;
}

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

  /** @throws {ValidationError} naming each bad option. */
  constructor(options: FileStoreOptions) {
    const parsed = parseOrThrow(FileStoreOptionsSchema, options ?? {}, "FileStoreOptions");
    this.#directory = resolve(parsed.directory);
    this.#fsync = parsed.fsync ?? DEFAULT_FILE_STORE_OPTIONS.fsync;
    this.#staleLockMs = parsed.staleLockMs ?? DEFAULT_FILE_STORE_OPTIONS.staleLockMs;
    this.#clock = parsed.clock ?? systemClock;
  }

  async read(sessionId: string, after: number, knownVersion = -1): Promise<StoredState> {
    checkArguments(sessionId, { tail: after });
    return this.#locked(sessionId, async (dir) =>
      this.#read(sessionId, dir, await this.#state(sessionId, dir), after, knownVersion),
    );
  }

  async append(sessionId: string, expected: StorePosition, data: string): Promise<AppendResult> {
    checkArguments(sessionId, expected);
    return this.#locked(sessionId, async (dir, lock): Promise<AppendResult> => {
      const state = await this.#state(sessionId, dir);
      if (state.tail !== expected.tail || state.version !== expected.version) {
        const missed = await this.#read(sessionId, dir, state, expected.tail, expected.version);
        return { appended: false, state: missed };
      }
      const seq = state.tail + 1;
      await realDirectory(dir, true);
      await realDirectory(join(dir, "log"), true);
      await this.#put(sessionId, lock, join(dir, "log", `${seq}.json`), String(data));
      await this.#sync(join(dir, "log"));
      await this.#commit(sessionId, lock, dir, { ...state, tail: seq });
      return { appended: true, seq };
    });
  }

  async swapHead(
    sessionId: string,
    expectedVersion: number,
    head: { through: number; data: string },
  ): Promise<boolean> {
    checkArguments(sessionId, { version: expectedVersion, through: head.through });
    return this.#locked(sessionId, async (dir, lock) => {
      const state = await this.#state(sessionId, dir);
      if (state.version !== expectedVersion) return false;
      if (head.through < state.through || head.through > state.tail) return false;
      const version = state.version + 1;
      await realDirectory(dir, true);
      await this.#put(sessionId, lock, join(dir, `head-${version}.json`), String(head.data));
      await this.#commit(sessionId, lock, dir, {
        tail: state.tail,
        version,
        through: head.through,
      });
      // Committed: what the new head replaces is garbage now (a crash here leaves it unread).
      const garbage = [join(dir, `head-${state.version}.json`)];
      for (let seq = state.through + 1; seq <= head.through; seq += 1)
        garbage.push(join(dir, "log", `${seq}.json`));
      await Promise.all(garbage.map((path) => unlink(path).catch(() => undefined)));
      return true;
    });
  }

  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkArguments(sessionId);
    assertName(owner, "lease owner");
    assertCount(ttlMs, "lease ttlMs");
    return this.#locked(sessionId, async (dir, lock) => {
      const path = join(dir, "lease.json");
      const lease = await this.#json<{ owner: string; expiresAt: number }>(
        sessionId,
        path,
        "lease",
      );
      const now = this.#clock().getTime();
      if (lease !== undefined && lease.owner !== owner && lease.expiresAt > now) return false;
      await realDirectory(dir, true);
      await this.#put(sessionId, lock, path, JSON.stringify({ owner, expiresAt: now + ttlMs }));
      await this.#sync(dir);
      return true;
    });
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    checkArguments(sessionId);
    return this.#locked(sessionId, async (dir) => {
      const path = join(dir, "lease.json");
      const lease = await this.#json<{ owner: string }>(sessionId, path, "lease");
      if (lease?.owner === owner) await unlink(path).catch(() => undefined);
    });
  }

  async getValue(sessionId: string, key: string): Promise<string | undefined> {
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

  async setValue(sessionId: string, key: string, value: string): Promise<void> {
    checkArguments(sessionId);
    assertName(key, "key");
    return this.#locked(sessionId, async (dir, lock) => {
      const path = join(dir, "values.json");
      const values = (await this.#json<Record<string, string>>(sessionId, path, "values")) ?? {};
      values[key] = String(value);
      await realDirectory(dir, true);
      await this.#put(sessionId, lock, path, JSON.stringify(values));
      await this.#sync(dir);
    });
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkArguments(sessionId);
    return this.#locked(sessionId, (dir) => rm(dir, { recursive: true, force: true }));
  }

  /**
   * Runs `task` on the session's directory, holding its lock, once the directory (and its log)
   * are found to be real directories or absent, never links. Errors come out typed, naming
   * the session: bad stored data and links as a `ValidationError`, the file system's as a `StoreError`.
   */
  async #locked<T>(
    sessionId: string,
    task: (dir: string, lock: HeldLock) => Promise<T>,
  ): Promise<T> {
    const name = fileName(sessionId);
    const dir = join(this.#directory, name);
    try {
      // Created once; a failure (a permission fixed later) is tried again by the next call.
      this.#created ??= mkdir(this.#directory, { recursive: true }).catch((error: unknown) => {
        this.#created = undefined;
        throw error;
      });
      await this.#created;
      return await withFileLock(
        join(this.#directory, `${name}.lock`),
        this.#staleLockMs,
        async (lock) => {
          await realDirectory(dir, false);
          await realDirectory(join(dir, "log"), false);
          return task(dir, lock);
        },
      );
    } catch (error) {
      if (ValidationError.isInstance(error) || StoreError.isInstance(error)) throw error;
      if (error instanceof LinkRefused) {
        const where = relative(dir, error.path) || "directory";
        const problem = `${error.problem}: refused, the store never follows links`;
        throw storedStateError(sessionId, [where], problem, error);
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new StoreError("io_error", sessionId, message, { cause: error });
    }
  }

  /** The head and the records after `max(after, through)` of `state` (holding the lock), checked. */
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
        : await readText(join(dir, `head-${state.version}.json`));
    const records = [];
    for (let seq = Math.max(after, state.through) + 1; seq <= state.tail; seq += 1) {
      const data = await readText(join(dir, "log", `${seq}.json`));
      if (data === undefined) {
        throw storedStateError(sessionId, ["log", seq], "is missing: records were lost");
      }
      records.push({ seq, data });
    }
    return checkStoredState(sessionId, { ...state, head, records }, after);
  }

  async #state(sessionId: string, dir: string): Promise<State> {
    const state = await this.#json<State>(sessionId, join(dir, "state.json"), "state");
    if (state === undefined) return EMPTY;
    const { tail, version, through } = state;
    // Checked whole by checkStoredState once read; here only what reading records relies on.
    for (const [key, value] of Object.entries({ tail, version, through })) {
      if (!Number.isSafeInteger(value) || (value as number) < 0) {
        throw storedStateError(sessionId, ["state", key], "must be a whole number ≥ 0");
      }
    }
    return { tail, version, through };
  }

  async #json<T>(sessionId: string, path: string, field: string): Promise<T | undefined> {
    const text = await readText(path);
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as T;
    } catch {
      // Reported below.
    }
    throw storedStateError(sessionId, [field], "is not a JSON object");
  }

  /** Writes `path` whole, once this process is found to hold the session's lock still. */
  async #put(sessionId: string, lock: HeldLock, path: string, data: string): Promise<void> {
    if (!(await lock.confirm())) {
      throw new StoreError(
        "lock_lost",
        sessionId,
        "its lock was broken as stale while this call held it (it stalled past staleLockMs); nothing was committed",
      );
    }
    await writeWhole(path, data, this.#fsync);
  }

  /** Commits a new state: the rename of the state file is the instant the write takes effect. */
  async #commit(sessionId: string, lock: HeldLock, dir: string, state: State): Promise<void> {
    await this.#put(sessionId, lock, join(dir, "state.json"), JSON.stringify(state));
    await this.#sync(dir);
  }

  async #sync(dir: string): Promise<void> {
    if (this.#fsync) await syncDirectory(dir);
  }
}
