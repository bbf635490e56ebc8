/**
 * `agent-compaction/store`: sessions kept in a store, shared by id between workers and
 * processes. The `SessionStore` contract, `openSession`, and `MemoryStore` for one process; the
 * stores for one machine and for many sit in `/file-store`, `/redis` and `/postgres`. Beside
 * them, the `CompactionArchive` contract (where a session keeps what compactions remove, for
 * `recall`) and `MemoryArchive`, every session's default; and `CompactionMemory`, what the
 * one-call helpers sent, for a server whose clients send the whole history with each request.
 *
 * @example
 * import { MemoryStore, openSession } from "agent-compaction/store";
 *
 * const session = await openSession(new MemoryStore(), "conversation-42", { contextLimit: 200_000 });
 * await session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 *
 * @packageDocumentation
 */
export {
  type ArchiveRecord,
  type CompactionArchive,
  MemoryArchive,
} from "../session/archive.js";
export {
  CompactionMemory,
  type CompactionMemoryOptions,
} from "../session/compaction-memory.js";
export { MemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export type {
  AppendResult,
  SessionStore,
  StoredRecord,
  StoredState,
  StorePosition,
} from "./session-store.js";
export { StoreError, type StoreErrorCode } from "./store-error.js";
export {
  openSession,
  type StoredCompactionReport,
  StoredSession,
} from "./stored-session.js";
export {
  DEFAULT_STORED_SESSION_OPTIONS,
  type StoredSessionOptions,
} from "./stored-session-options.js";
