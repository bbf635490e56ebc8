import { CompactionError } from "./errors.js";

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
