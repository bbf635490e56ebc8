import { idleReport, type MaybeCompactReport } from "./compaction-report.js";

/**
 * Background mode's gate: a summary written in the background is applied at the next
 * `maybeCompact` (where the conversation ends in a user message, never mid tool exchange), or
 * at once when the session waits for it anyway (above the ceiling, `forceCompact`). The run it
 * is given to says when it detaches (its summary starts) and waits here before it applies one.
 */
export class BackgroundGate {
  /** Background mode's ceiling, as a share of the window. */
  readonly ceiling: number;
  #open: (() => void) | undefined;
  #applyNow = false;
  #detached: (() => void) | undefined;
  /** Whether a run is in flight: a release lasts until it ends, and none outlives it. */
  #running = false;

  constructor(ceiling: number) {
    this.ceiling = ceiling;
  }

  /** A run starts: resolves to `detached` once it {@link BackgroundGate.detach}es. */
  started(): Promise<"detached"> {
    this.#running = true;
    return new Promise((resolve) => {
      this.#detached = () => resolve("detached");
    });
  }

  /** The run started a summary: its call stops waiting for it. */
  detach(): void {
    this.#detached?.();
  }

  /** Whether a summary arrived and waits to be applied. */
  get waiting(): boolean {
    return this.#open !== undefined;
  }

  /** What the run awaits before it applies a background summary. */
  beforeApply(): Promise<void> {
    return this.#applyNow
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#open = resolve;
        });
  }

  /**
   * Lets the summary of the run in flight be applied, now and until the run ends; nothing when
   * none is (a release after the run ended would let every later summary land mid exchange).
   */
  release(): void {
    if (!this.#running) return;
    this.#applyNow = true;
    const open = this.#open;
    this.#open = undefined;
    open?.();
  }

  /** Forgets the run that ended. */
  reset(): void {
    this.#running = false;
    this.#applyNow = false;
    this.#open = undefined;
    this.#detached = undefined;
  }
}

/** What `maybeCompact` says when a summary goes on in the background. */
export function backgroundReport(contextUsed: number, contextLimit: number): MaybeCompactReport {
  return { ...idleReport(contextUsed, contextLimit), inBackground: true };
}
