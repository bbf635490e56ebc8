import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, open, unlink } from "node:fs/promises";

/** `O_NOFOLLOW` where the platform has it (not on Windows). */
export const NO_FOLLOW: number = constants.O_NOFOLLOW ?? 0;

/** Flags of a file created here: new (never an existing file or link), for writing. */
export const CREATE_EXCLUSIVE: number =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;

/** How many breakers of one stale lock may die mid-break before the lock is given up on. */
const MAX_BREAK_LEVELS = 4;

/** Session directories locked by this process, so its own workers queue instead of polling. */
const held = new Map<string, Promise<unknown>>();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `error` is a Node system error with `code`. */
export const isCode = (error: unknown, code: string): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;

/** The lock as the process holding it sees it. */
export interface HeldLock {
  /**
   * Refreshes the lock and tells whether it is still this holder's: `false` once another
   * process broke it as stale (this one stalled past `staleMs`), and then nothing may be committed.
   */
  confirm(): Promise<boolean>;
}

/** A lock file as found: which one it is (its inode and content) and when it was last refreshed. */
interface Found {
  id: string;
  mtimeMs: number;
}

/** Creates `path` exclusively holding `content`; `undefined` when it exists already. */
async function createExclusive(path: string, content: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, CREATE_EXCLUSIVE, 0o600);
  } catch (error) {
    if (isCode(error, "EEXIST")) return undefined;
    throw error;
  }
  try {
    await handle.writeFile(content);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
}

/** The lock file at `path` (never through a link), or `undefined` when there is none. */
async function inspect(path: string): Promise<Found | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    if (isCode(error, "ENOENT")) return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    const content = await handle.readFile();
    const digest = createHash("sha256").update(content).digest("hex").slice(0, 24);
    return { id: `${info.ino}-${digest}`, mtimeMs: info.mtimeMs };
  } finally {
    await handle.close();
  }
}

const isStale = (mtimeMs: number, staleMs: number) => Date.now() - mtimeMs > staleMs;

/**
 * Removes the lock file found stale as `found`, atomically: of all the processes that found
 * it stale, only the one that creates the break marker named after it (exclusively) may
 * remove it, and only while it is still that file, still stale. A fresh lock that replaced it
 * is another file and is never removed. A marker older than `staleMs` is a breaker that died
 * at it: the next level's marker takes over. Resolves to whether this process did the break.
 */
async function breakStale(path: string, found: Found, staleMs: number): Promise<boolean> {
  const markers: string[] = [];
  for (let level = 1; level <= MAX_BREAK_LEVELS; level += 1) {
    const marker = `${path}.${found.id}.${level}.break`;
    const handle = await createExclusive(marker, `${process.pid}\n`);
    if (handle === undefined) {
      const info = await lstat(marker).catch(() => undefined);
      if (info === undefined || !isStale(info.mtimeMs, staleMs)) return false;
      markers.push(marker);
      continue;
    }
    await handle.close();
    markers.push(marker);
    try {
      const current = await inspect(path);
      if (current?.id === found.id && isStale(current.mtimeMs, staleMs)) {
        await unlink(path).catch((error: unknown) => {
          if (!isCode(error, "ENOENT")) throw error;
        });
      }
    } finally {
      // Only now: a late breaker that takes a marker again finds another lock file, or none.
      await Promise.all(markers.map((name) => unlink(name).catch(() => undefined)));
    }
    return true;
  }
  throw new Error(
    `the stale lock ${path} could not be broken: ${MAX_BREAK_LEVELS} breakers died at it`,
  );
}

/** Takes the lock file: created exclusively; one found older than `staleMs` is broken (its holder died). */
async function acquire(path: string, staleMs: number): Promise<FileHandle> {
  const token = `${process.pid} ${randomBytes(12).toString("hex")}\n`;
  let delay = 1;
  for (;;) {
    const handle = await createExclusive(path, token);
    if (handle !== undefined) return handle;
    const found = await inspect(path);
    if (found === undefined) continue;
    if (isStale(found.mtimeMs, staleMs) && (await breakStale(path, found, staleMs))) continue;
    await pause(delay);
    delay = Math.min(delay * 2, 50);
  }
}

/** A lock this process holds: refreshed every third of `staleMs` so it never looks stale. */
class Lock implements HeldLock {
  readonly #path: string;
  readonly #handle: FileHandle;
  /** The lock file's identity (an inode stays this file's while the handle keeps it open). */
  readonly #identity: { ino: number; dev: number };
  readonly #timer: ReturnType<typeof setInterval>;

  /** Holds the lock file just created as `handle`. */
  static async take(path: string, handle: FileHandle, staleMs: number): Promise<Lock> {
    try {
      const { ino, dev } = await handle.stat();
      return new Lock(path, handle, { ino, dev }, staleMs);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(path).catch(() => undefined);
      throw error;
    }
  }

  private constructor(
    path: string,
    handle: FileHandle,
    identity: { ino: number; dev: number },
    staleMs: number,
  ) {
    this.#path = path;
    this.#handle = handle;
    this.#identity = identity;
    this.#timer = setInterval(() => void this.#touch(), Math.max(1, Math.floor(staleMs / 3)));
    this.#timer.unref?.();
  }

  async confirm(): Promise<boolean> {
    await this.#touch();
    return this.#isMine();
  }

  /** Removes the lock file if it is still this holder's (a broken one belongs to another now). */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    try {
      if (await this.#isMine()) await unlink(this.#path).catch(() => undefined);
    } finally {
      await this.#handle.close();
    }
  }

  async #touch(): Promise<void> {
    const now = new Date();
    await this.#handle.utimes(now, now).catch(() => undefined);
  }

  async #isMine(): Promise<boolean> {
    const current = await lstat(this.#path).catch(() => undefined);
    return current?.ino === this.#identity.ino && current.dev === this.#identity.dev;
  }
}

/**
 * Runs `task` holding the lock of `path` (a file next to the session's files): one task at a
 * time in this process (a queue), and across processes through the lock file. The holder
 * refreshes it while the task runs; a lock file not refreshed for `staleMs` is taken as its
 * holder's crash and broken, by one process only.
 */
export function withFileLock<T>(
  path: string,
  staleMs: number,
  task: (lock: HeldLock) => Promise<T>,
): Promise<T> {
  const previous = held.get(path) ?? Promise.resolve();
  const run = previous.then(async () => {
    const lock = await Lock.take(path, await acquire(path, staleMs), staleMs);
    try {
      return await task(lock);
    } finally {
      await lock.release();
    }
  });
  const settled = run.catch(() => undefined);
  held.set(path, settled);
  void settled.then(() => {
    if (held.get(path) === settled) held.delete(path);
  });
  return run;
}
