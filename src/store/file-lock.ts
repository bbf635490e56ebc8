import { open, stat, unlink } from "node:fs/promises";

/** Session directories locked by this process, so its own workers queue instead of polling. */
const held = new Map<string, Promise<unknown>>();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isCode = (error: unknown, code: string) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;

/** Takes the lock file: created exclusively, broken when older than `staleMs` (its holder died). */
async function acquireFile(path: string, staleMs: number): Promise<void> {
  let delay = 2;
  for (;;) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(`${process.pid} ${Date.now()}\n`);
      await handle.close();
      return;
    } catch (error) {
      if (!isCode(error, "EEXIST")) throw error;
    }
    try {
      const { mtimeMs } = await stat(path);
      if (Date.now() - mtimeMs > staleMs) {
        await unlink(path).catch(() => undefined);
        continue;
      }
    } catch (error) {
      if (!isCode(error, "ENOENT")) throw error;
      continue;
    }
    await pause(delay);
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * Runs `task` holding the lock of `path` (a file next to the session's files): one task at a
 * time in this process (a queue), and across processes through the lock file. A lock file
 * older than `staleMs` is taken as its holder's crash and broken.
 */
export function withFileLock<T>(path: string, staleMs: number, task: () => Promise<T>): Promise<T> {
  const previous = held.get(path) ?? Promise.resolve();
  const run = previous.then(async () => {
    await acquireFile(path, staleMs);
    try {
      return await task();
    } finally {
      await unlink(path).catch(() => undefined);
    }
  });
  const settled = run.catch(() => undefined);
  held.set(path, settled);
  void settled.then(() => {
    if (held.get(path) === settled) held.delete(path);
  });
  return run;
}
