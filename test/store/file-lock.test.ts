import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { withFileLock } from "../../src/file-store/file-lock.js";

let root = "";
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agent-compaction-file-lock-"));
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

/** Waits for `condition` (an effect of file I/O in flight), failing after `limit` checks. */
async function until(condition: () => boolean, limit = 200): Promise<void> {
  for (let check = 0; check < limit; check += 1) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error("the condition never held");
}

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("file lock", () => {
  it("a holder refreshes its lock while its task runs, so a long task never looks stale", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    const path = join(root, "session.lock");
    const started = gate();
    const finish = gate();
    const holding = withFileLock(path, 1000, async (lock) => {
      started.open();
      await finish.promise;
      return lock.confirm();
    });
    await started.promise;
    for (let step = 1; step <= 5; step += 1) {
      vi.advanceTimersByTime(1000);
      // A contender judges staleness by the file's mtime against its clock.
      await until(() => Date.now() - statSync(path).mtimeMs < 1000);
    }
    finish.open();
    expect(await holding).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it("a holder whose lock was broken and taken knows it, and leaves the new holder's lock alone", async () => {
    const path = join(root, "session.lock");
    const confirmed = await withFileLock(path, 1000, async (lock) => {
      expect(await lock.confirm()).toBe(true);
      // Another process broke it as stale and holds it now.
      rmSync(path);
      writeFileSync(path, "the new holder\n");
      return lock.confirm();
    });
    expect(confirmed).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("the new holder\n");
  });
});
