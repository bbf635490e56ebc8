/**
 * `agent-compaction/file-store`: a session store in a directory, for one machine. Node.js only
 * (it uses `node:fs`), so it sits apart from the root entry, which runs everywhere.
 *
 * @example
 * import { FileStore } from "agent-compaction/file-store";
 * import { openSession } from "agent-compaction/store";
 *
 * const store = new FileStore({ directory: "./sessions" });
 * const session = await openSession(store, "conversation-42", { contextLimit: 200_000 });
 *
 * @packageDocumentation
 */
export { FileStore, type FileStoreOptions } from "./file-store.js";
