import { idleReport, type MaybeCompactReport } from "./compaction-report.js";
import type { CompactionRunOptions } from "./compaction-run.js";

/** What background mode needs from its session. */
export interface BackgroundSession {
  contextUsed: () => number;
  contextLimit: number;
  /** The automatic run in flight, if any. */
  pending: Promise<MaybeCompactReport> | undefined;
  /** Starts an automatic run (a call while one runs joins it). */
  runAuto: (options: CompactionRunOptions) => Promise<MaybeCompactReport>;
}

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
  return { ...idleReport(contextUsed, contextLimit), inBackground: true };
}

/**
 * `maybeCompact` in background mode: a summary starts and the call returns; one that arrived is
 * applied at the next call, before its request; one in flight is waited for only above the
 * ceiling.
 */
export async function compactInBackground(
  gate: BackgroundGate,
  options: CompactionRunOptions,
  session: BackgroundSession,
): Promise<MaybeCompactReport> {
  const underCeiling = () => session.contextUsed() <= gate.ceiling * session.contextLimit;
  const report = () => backgroundReport(session.contextUsed(), session.contextLimit);
  if (session.pending !== undefined) {
    if (!gate.waiting && underCeiling()) return report();
    gate.release();
    return session.pending;
  }
  let detached = () => {};
  const started = new Promise<"detached">((resolve) => {
    detached = () => resolve("detached");
  });
  const run = session.runAuto({ ...options, detach: detached, beforeApply: gate.beforeApply });
  run.catch(() => {});
  const first = await Promise.race([run, started]);
  if (first === "detached" && underCeiling()) return report();
  gate.release();
  return run;
}
