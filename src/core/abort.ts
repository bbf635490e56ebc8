import pTimeout, { TimeoutError } from "p-timeout";
import { CompactionError } from "./errors.js";

/**
 * The longest delay a timer takes (2^31 − 1 ms, about 24.8 days): Node and browsers run a
 * longer one at once, so every millisecond option is refused above it
 * (`TimerMillisecondsSchema`).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Whether `value` behaves as an `AbortSignal`. Duck-typed, not `instanceof`, so signals from
 * polyfills or another realm (an iframe, a VM context) work too.
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  if (typeof value !== "object" || value === null) return false;
  const signal = value as Partial<AbortSignal>;
  return (
    typeof signal.aborted === "boolean" &&
    typeof signal.addEventListener === "function" &&
    typeof signal.removeEventListener === "function"
  );
}

/** The error a compaction rejects with when its signal fires. */
export function abortedError(signal: AbortSignal | undefined): CompactionError {
  return new CompactionError("aborted", "compaction was aborted", { cause: signal?.reason });
}

/** Throws `CompactionError` code `aborted` when `signal` has fired. Call before every request. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

/** A signal of our own that follows the caller's, and a promise that rejects when it fires. */
export interface LinkedAbort {
  /** Aborted when the caller's signal fires or {@link LinkedAbort.abort} is called. */
  readonly signal: AbortSignal;
  /** Rejects with `CompactionError` code `aborted` when the caller's signal fires. */
  readonly aborted: Promise<never>;
  /** Aborts the linked signal (e.g. on a timeout) without rejecting `aborted`. */
  abort(reason: unknown): void;
  /** Stops following the caller's signal. */
  release(): void;
}

/**
 * Links a request to the caller's signal: the request gets a signal of its own (so a timeout
 * can cancel it too), and `aborted` rejects as soon as the caller aborts, even when the
 * request ignores its signal. Already aborted: `aborted` rejects at once.
 */
export function linkAbort(callerSignal: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  let rejectAborted: (error: CompactionError) => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    rejectAborted = reject;
  });
  aborted.catch(() => {});
  const forward = () => {
    rejectAborted(abortedError(callerSignal));
    controller.abort(callerSignal?.reason);
  };
  if (callerSignal?.aborted) forward();
  else callerSignal?.addEventListener("abort", forward, { once: true });
  return {
    signal: controller.signal,
    aborted,
    abort: (reason) => controller.abort(reason),
    release: () => callerSignal?.removeEventListener("abort", forward),
  };
}

/** Timer functions, injectable so tests can control the summary deadline. */
export interface Timers {
  setTimeout: typeof globalThis.setTimeout;
  clearTimeout: typeof globalThis.clearTimeout;
}

/** How {@link requestWithin} runs one request. */
export interface RequestWithinOptions {
  /** The caller's signal. */
  signal: AbortSignal | undefined;
  /** The deadline, in milliseconds. */
  milliseconds: number;
  /** Timers for the deadline (tests inject their own). @default the global timers */
  timers?: Timers | undefined;
  /** What timed out, for the message: `${what} timed out after N ms`. */
  what: string;
  /** Whether an error the request threw is a timeout of its own (an SDK's). @default none is */
  isTimeout?: (error: unknown) => boolean;
  /** The error for anything else the request threw (its `llm_error`). */
  failure: (error: unknown) => CompactionError;
}

/**
 * One request under a deadline, linked to the caller's signal: `start` gets a signal that
 * fires when the caller aborts or the deadline passes. Rejects with `CompactionError`:
 * `aborted` when the caller's signal fired (checked before the request starts too), `timeout`
 * when the deadline passed (the request is then aborted), a `CompactionError` the request threw
 * as it is, and anything else as `failure` makes it.
 */
export async function requestWithin<T>(
  start: (signal: AbortSignal) => T | PromiseLike<T>,
  options: RequestWithinOptions,
): Promise<T> {
  throwIfAborted(options.signal);
  const link = linkAbort(options.signal);
  let request: Promise<T>;
  try {
    request = Promise.resolve(start(link.signal));
  } catch (error) {
    request = Promise.reject(error);
  }
  request.catch(() => {});
  try {
    return await pTimeout(Promise.race([request, link.aborted]), {
      milliseconds: options.milliseconds,
      ...(options.timers === undefined ? {} : { customTimers: options.timers }),
    });
  } catch (error) {
    if (CompactionError.isInstance(error)) throw error;
    throwIfAborted(options.signal);
    if (error instanceof TimeoutError || options.isTimeout?.(error) === true) {
      link.abort(error);
      throw new CompactionError(
        "timeout",
        `${options.what} timed out after ${options.milliseconds} ms`,
        { cause: error },
      );
    }
    throw options.failure(error);
  } finally {
    link.release();
  }
}
