import type { Clock } from "../core/message-factory.js";
import type { SessionSnapshot } from "./snapshot.js";

/** `closed`: summaries run; `open`: they pause; `half_open`: the next one is tried once. */
export type CircuitState = "closed" | "open" | "half_open";

/**
 * Pauses automatic summaries after `maxFailures` failed in a row, for `cooldownMs` by the
 * session's clock; then it is half-open: the next due summary is tried, and a success closes it
 * while a failure opens it for another cooldown. A snapshot carries the count and when it
 * opened: restored, it stays open for what is left of the cooldown (by the new session's
 * clock), and without that time (an older snapshot) it is half-open, never open for ever.
 */
export class CircuitBreaker {
  readonly #maxFailures: number;
  readonly #cooldownMs: number;
  readonly #clock: Clock;
  #failures = 0;
  /** When it last opened (ms since the epoch); `undefined` when closed or restored. */
  #openedAt: number | undefined;
  /**
   * Told of each change a run makes (`true`: a failure counted; `false`: closed), never of a
   * restore: a stored session keeps what its store has not taken yet.
   */
  declare onChange?: (failed: boolean) => void;

  constructor(maxFailures: number, cooldownMs: number, clock: Clock) {
    this.#maxFailures = maxFailures;
    this.#cooldownMs = cooldownMs;
    this.#clock = clock;
  }

  /** Summaries failed in a row. */
  get failures(): number {
    return this.#failures;
  }

  /** Whether it pauses automatic summaries now. */
  get open(): boolean {
    return this.state === "open";
  }

  /** The breaker as a snapshot carries it: the count, and when it opened (ISO 8601) while it counts failures. */
  get snapshot(): Pick<SessionSnapshot, "consecutiveFailures" | "circuitOpenedAt"> {
    const openedAt = this.#failures < this.#maxFailures ? undefined : this.#openedAt;
    return {
      consecutiveFailures: this.#failures,
      ...(openedAt === undefined ? {} : { circuitOpenedAt: new Date(openedAt).toISOString() }),
    };
  }

  /** Takes a snapshot's state: the count, and when it opened (without it: half-open). */
  restore(snapshot: { consecutiveFailures: number; circuitOpenedAt?: Date }): void {
    this.#failures = snapshot.consecutiveFailures;
    this.#openedAt = snapshot.circuitOpenedAt?.getTime();
  }

  get state(): CircuitState {
    if (this.#failures < this.#maxFailures) return "closed";
    if (this.#openedAt === undefined) return "half_open";
    const elapsed = this.#clock().getTime() - this.#openedAt;
    // A clock set back counts as the cooldown passed: it cannot keep the breaker open for ever.
    return elapsed >= 0 && elapsed < this.#cooldownMs ? "open" : "half_open";
  }

  /** A summary failed: counted; at the limit (or from half-open) the breaker opens. */
  failed(): void {
    this.#failures += 1;
    if (this.#failures >= this.#maxFailures) this.#openedAt = this.#clock().getTime();
    this.onChange?.(true);
  }

  /** A summary succeeded (or a manual run finished): closed. */
  succeeded(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
    this.onChange?.(false);
  }
}
