import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileStore } from "../../src/store/file-store.js";
import { storeContract } from "./store-contract.js";
import { delegate, signal } from "./support/delegate.js";

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
    close: async () => rmSync(root, { recursive: true, force: true }),
  };
});
