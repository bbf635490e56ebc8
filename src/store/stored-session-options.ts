import * as z from "zod/mini";
import type { Timers } from "../core/abort.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import {
  NON_EMPTY_STRING_SCHEMA,
  POSITIVE_INT_SCHEMA,
  TIMERS_SCHEMA,
  TimerMillisecondsSchema,
} from "../core/option-schemas.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { AgentSessionOptions } from "../session/options.js";

/** Options of `openSession`: the session's own options, and how it shares the store. */
export interface StoredSessionOptions extends Omit<AgentSessionOptions, "sessionId"> {
  /**
   * How long a compaction lease lasts unless renewed (a live worker renews it every third of
   * this while its summary runs): the longest a dead worker keeps others from compacting; at
   * most 2^31−1. @default 30000
   */
  leaseMs?: number;
  /**
   * How many times a compaction is computed when another worker changed the head first (each
   * time on the new history); then `maybeCompact` reports the conflict and `forceCompact`
   * rejects. @default 3
   */
  maxAttempts?: number;
  /** This worker's name in the session's lease. @default a new uuid v7 */
  workerId?: string;
  /**
   * How long one store call may take (a read, an append, the head's swap, the lease, a key):
   * one that does not answer by then rejects with a `StoreError` `timeout`, so a hung server
   * or connection cannot keep a call (or the lease: a worker stuck so stops renewing it)
   * forever. At most 2^31−1. @default 10000
   */
  storeTimeoutMs?: number;
  /** Timers for `storeTimeoutMs` and the lease's renewal (tests inject their own). @default the global timers */
  timers?: Timers;
}

/** The defaults of {@link StoredSessionOptions}' own options. */
export const DEFAULT_STORED_SESSION_OPTIONS = Object.freeze({
  leaseMs: 30_000,
  maxAttempts: 3,
  storeTimeoutMs: 10_000,
});

const StoredOptionsSchema = z.object({
  leaseMs: z.exactOptional(TimerMillisecondsSchema),
  maxAttempts: z.exactOptional(POSITIVE_INT_SCHEMA),
  workerId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
  storeTimeoutMs: z.exactOptional(TimerMillisecondsSchema),
  timers: z.exactOptional(TIMERS_SCHEMA),
});

/** What `splitOptions` gives of the store's own options, defaults applied. */
export interface StoredSessionOwnOptions {
  leaseMs: number;
  maxAttempts: number;
  workerId: string | undefined;
  storeTimeoutMs: number;
  timers: Timers | undefined;
}

/** The options split: the store's own (validated, defaults applied), and the session's. */
export function splitOptions(options: StoredSessionOptions): {
  own: StoredSessionOwnOptions;
  session: Omit<AgentSessionOptions, "sessionId">;
} {
  if (!isPlainObject(options)) {
    throw new ValidationError("openSession options", [{ path: [], message: "must be an object" }]);
  }
  const { leaseMs, maxAttempts, workerId, storeTimeoutMs, timers, ...session } = options;
  if ("sessionId" in session) {
    throw new ValidationError("openSession options", [
      { path: ["sessionId"], message: "is openSession's second argument, not an option" },
    ]);
  }
  if (session["background"] !== undefined && session["background"] !== false) {
    throw new ValidationError("openSession options", [
      {
        path: ["background"],
        message:
          "is not for stored sessions: run forceCompact in a worker of its own (a background job) instead; the others keep appending, and its result is swapped in by compare-and-swap",
      },
    ]);
  }
  const own = parseOrThrow(
    StoredOptionsSchema,
    { leaseMs, maxAttempts, workerId, storeTimeoutMs, timers },
    "openSession options",
  );
  const defaults = DEFAULT_STORED_SESSION_OPTIONS;
  return {
    own: {
      leaseMs: own.leaseMs ?? defaults.leaseMs,
      maxAttempts: own.maxAttempts ?? defaults.maxAttempts,
      workerId: own.workerId,
      storeTimeoutMs: own.storeTimeoutMs ?? defaults.storeTimeoutMs,
      timers: own.timers,
    },
    session,
  };
}
