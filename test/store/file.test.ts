import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../src/file-store/file-store.js";
import { openSession } from "../../src/store/stored-session.js";
import { storeContract } from "./store-contract.js";
import { delegate, signal } from "./support/delegate.js";
import { numbered } from "./support/file-appender.js";

/** The directory FileStore keeps a session in (its naming, for tests that reach past it). */
const sessionDir = (root: string, sessionId: string) =>
  join(root, `s-${Buffer.from(sessionId, "utf8").toString("base64url")}`);

storeContract("file", async () => {
  const root = mkdtempSync(join(tmpdir(), "agent-compaction-file-store-"));
  // Each worker has its own FileStore on the directory, as separate processes would.
  const open = (clock?: () => Date) =>
    new FileStore({ directory: root, fsync: false, ...(clock === undefined ? {} : { clock }) });
  return {
    open: async (options = {}) => open(options.clock),
    dropping: async () => {
      // A worker that crashes while it swaps the head: the new head written, not committed.
      const inner = open();
      const dropped = signal();
      const store = delegate(inner, {
        swapHead: async (sessionId, expectedVersion, head) => {
          const dir = sessionDir(root, sessionId);
          writeFileSync(join(dir, `head-${expectedVersion + 1}.json`), head.data.slice(0, 100));
          writeFileSync(join(dir, "state.json.999.1.tmp"), '{"tail":3,"vers');
          dropped.resolve();
          throw new Error("the worker crashed");
        },
      });
      return { store, dropped: dropped.promise };
    },
    corrupt: async (sessionId, seq, data) => {
      writeFileSync(join(sessionDir(root, sessionId), "log", `${seq}.json`), data);
    },
    lose: async (sessionId, seq) => {
      rmSync(join(sessionDir(root, sessionId), "log", `${seq}.json`));
    },
    close: async () => rmSync(root, { recursive: true, force: true }),
  };
});

describe("file store: the process killed mid-append", () => {
  it("leaves no half-written message, loses no acknowledged one, and a new process loads the session", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agent-compaction-file-crash-"));
    try {
      const sessionId = "crashed-conversation";
      const script = join(import.meta.dirname, "support", "file-appender.ts");
      const child = spawn(process.execPath, ["--import", "tsx", script, directory, sessionId], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const acknowledged: string[] = [];
      await new Promise<void>((resolve, reject) => {
        let buffered = "";
        child.stdout.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? "";
          acknowledged.push(...lines);
          if (acknowledged.length >= 40 && child.exitCode === null) child.kill("SIGKILL");
        });
        child.once("exit", () => resolve());
        child.once("error", reject);
      });
      expect(acknowledged.length).toBeGreaterThanOrEqual(40);
      // The dead writer's lock file is broken once it is older than staleLockMs.
      const store = new FileStore({ directory, staleLockMs: 200 });
      const session = await openSession(store, sessionId, { contextLimit: 10_000_000 });
      const stored = session.messages.map((message) => message.id);
      expect(stored.slice(0, acknowledged.length)).toEqual(acknowledged);
      // At most the append in flight landed unacknowledged; every message is whole.
      expect(stored.length - acknowledged.length).toBeLessThanOrEqual(1);
      session.messages.forEach((message, index) => {
        expect(message).toEqual(numbered(sessionId, index));
      });
      await session.addUserText("the worker restarted");
      expect(session.position.tail).toBe(stored.length + 1);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
