import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import { CREATE_EXCLUSIVE, isCode, NO_FOLLOW } from "./file-lock.js";

/** A file or directory the store found to be a link (or not a directory where one belongs). */
export class LinkRefused extends Error {
  readonly path: string;
  readonly problem: string;

  constructor(path: string, problem: string) {
    super(`${path} ${problem}`);
    this.path = path;
    this.problem = problem;
  }
}

/**
 * Checks that `dir` is a real directory or absent (never a symbolic link, which writes would
 * follow out of the store's directory); creates it when `create` and absent.
 * @throws {LinkRefused} when it is a link or not a directory.
 */
export async function realDirectory(dir: string, create: boolean): Promise<void> {
  const info = await lstat(dir).catch((error: unknown) => {
    if (isCode(error, "ENOENT")) return undefined;
    throw error;
  });
  if (info?.isSymbolicLink()) throw new LinkRefused(dir, "is a symbolic link");
  if (info !== undefined && !info.isDirectory()) throw new LinkRefused(dir, "is not a directory");
  if (info === undefined && create) {
    await mkdir(dir).catch((error: unknown) => {
      if (!isCode(error, "EEXIST")) throw error;
    });
  }
}

/** The text of `path`, never through a link; `undefined` when it is missing. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    const handle = await open(path, constants.O_RDONLY | NO_FOLLOW);
    try {
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (isCode(error, "ENOENT")) return undefined;
    // O_NOFOLLOW on a link: ELOOP on Linux and macOS, EMLINK on FreeBSD.
    if (isCode(error, "ELOOP") || isCode(error, "EMLINK"))
      throw new LinkRefused(path, "is a symbolic link");
    throw error;
  }
}

/**
 * Writes `path` whole: a temporary file at an unpredictable name, created exclusively (never
 * an existing file or a link placed there), flushed when `fsync`, then renamed over `path`
 * (which replaces a link there rather than following it).
 */
export async function writeWhole(path: string, data: string, fsync: boolean): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const temporary = `${path}.${randomBytes(12).toString("hex")}.tmp`;
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(temporary, CREATE_EXCLUSIVE, 0o666);
    } catch (error) {
      if (isCode(error, "EEXIST") && attempt < 3) continue;
      throw error;
    }
    try {
      try {
        await handle.writeFile(data);
        if (fsync) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
      return;
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}

/** Flushes a directory's entries (a rename in it) to the disk. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | NO_FOLLOW);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
