import { AgentCompactionError } from "../core/errors.js";

const STORE_ERROR_MARKER = Symbol.for("agent-compaction.StoreError");

/**
 * Why a store call failed: `io_error` the server, its client or the file system failed the
 * call (a connection lost, a statement refused, a disk full: `cause` is its error), and the
 * call may be retried; `lock_lost` a `FileStore` call stalled past `staleLockMs`, another
 * process broke its lock as stale, and the call gave up before committing anything; `timeout`
 * a stored session's call did not answer within `storeTimeoutMs` (it may still complete: what it
 * wrote is then read back like another worker's write).
 */
export type StoreErrorCode = "io_error" | "lock_lost" | "timeout";

/**
 * A store call that failed for a reason other than the data it found (bad stored data is a
 * `ValidationError` naming `stored session "<id>"`); it names the session.
 */
export class StoreError extends AgentCompactionError<StoreErrorCode> {
  override readonly name = "StoreError";
  /** The session the call was about. */
  readonly sessionId: string;

  constructor(
    code: StoreErrorCode,
    sessionId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(
      STORE_ERROR_MARKER,
      code,
      `Store call on session ${JSON.stringify(sessionId)} failed: ${message}`,
      options,
    );
    this.sessionId = sessionId;
  }

  /** Whether `value` is a `StoreError`, even from another copy of this package. */
  static readonly isInstance = AgentCompactionError.guard<StoreError>(STORE_ERROR_MARKER);
}
