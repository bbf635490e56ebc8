import type { MaybeCompactReport } from "./compaction-report.js";

/**
 * Background mode's gate: a summary written in the background is applied at the next
 * `maybeCompact` (where the conversation ends in a user message, never mid tool exchange), or
 * at once when the session waits for it anyway (above the ceiling, `forceCompact`).
 */
export class BackgroundGate {
  /** Background mode's ceiling, as a share of the window. */
  readonly ceiling: number;
  #open: (() => void) | undefined;
  #applyNow = false;

  constructor(ceiling: number) {
    this.ceiling = ceiling;
  }

  /** Whether a summary arrived and waits to be applied. */
  get waiting(): boolean {
    return this.#open !== undefined;
  }

  /** What the run awaits before it applies a background summary. */
  beforeApply = (): Promise<void> =>
    this.#applyNow
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#open = resolve;
        });

  /** Lets the summary of the run in flight be applied, now and until the run ends. */
  release(): void {
    this.#applyNow = true;
    const open = this.#open;
    this.#open = undefined;
    open?.();
  }

  /** Forgets the run that ended. */
  reset(): void {
    this.#applyNow = false;
    this.#open = undefined;
  }
}

/** What `maybeCompact` says when a summary goes on in the background. */
export function backgroundReport(contextUsed: number, contextLimit: number): MaybeCompactReport {
  return {
    compacted: false,
    contextUsedBefore: contextUsed,
    contextUsedAfter: contextUsed,
    results: [],
    boundaries: [],
    overWindow: contextUsed > contextLimit,
    inBackground: true,
  };
}
