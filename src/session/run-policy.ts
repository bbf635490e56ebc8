import { stageDue } from "../compactors/stage-loop.js";
import type { Compactor } from "../core/compactor.js";
import { compactorTarget } from "../core/compactor.js";
import type { CompactionTrigger } from "./events.js";
import type { PricedTiming } from "./run-settings.js";

/** Whether a compactor runs now: yes, not due (silently), or the circuit breaker is open. */
export type Gate = "run" | "not_due" | "circuit_open";

/**
 * What started a run: `maybeCompact` (`auto`), a compaction asked for with `requestCompaction`
 * (the model's compact tool) and run at the next `maybeCompact` (`requested`), or
 * `forceCompact` (`manual`).
 */
export type RunKind = "auto" | "requested" | "manual";

/**
 * How a run treats its compactors: the only difference between `maybeCompact` (automatic)
 * and `forceCompact` (manual), held as data so the stage loop has one path for both.
 */
export interface RunPolicy {
  readonly kind: RunKind;
  /** The trigger events report: `auto`, or `manual` for a run the app or the model asked for. */
  readonly trigger: CompactionTrigger;
  /**
   * Whether `compactor` runs, judged on the context measure of what the previous one left;
   * `circuitOpen`: the circuit breaker pauses automatic summaries.
   */
  gate(compactor: Compactor, contextUsed: number, circuitOpen: boolean): Gate;
  /** Each result lands as soon as it is computed; else all land together at the end (all or nothing). */
  readonly landsEachStep: boolean;
  /** A failure rejects the call; else it is reported and what landed stays. */
  readonly rethrows: boolean;
  /** Summaries' failures count toward the circuit breaker. */
  readonly countsFailures: boolean;
  /** A summary detaches from the call (background mode). */
  readonly detaches: boolean;
  /** A finished run closes the circuit breaker. */
  readonly resetsBreaker: boolean;
  /** A stored session waits for another worker's lease (at most `leaseMs`); else the run is `lease_held`. */
  readonly waitsForLease: boolean;
}

/**
 * Whether a priced session compacts `compactor` before its threshold: it is the compactor the
 * budget times, the reads since the last rewrite paid for one (`RewriteBudget`), and the
 * rewrite would at least halve the context.
 */
function repaysEarly(
  compactor: Compactor,
  contextUsed: number,
  contextLimit: number,
  priced: PricedTiming | undefined,
): boolean {
  if (priced === undefined || priced.compactor !== compactor || !priced.budget.repaid) return false;
  const target = compactorTarget(compactor);
  return target !== undefined && contextUsed >= 2 * target * contextLimit;
}

/** Whether an automatic run runs `compactor`: its threshold (or the prices) say it is due. */
function autoGate(
  compactor: Compactor,
  contextUsed: number,
  circuitOpen: boolean,
  contextLimit: number,
  priced: PricedTiming | undefined,
): Gate {
  const due =
    stageDue(compactor, contextUsed, { contextLimit }) ||
    repaysEarly(compactor, contextUsed, contextLimit, priced);
  if (!due) return "not_due";
  return compactor.isAsync === true && circuitOpen ? "circuit_open" : "run";
}

/**
 * The policy of a run of `kind`; `priced` times automatic runs by the prices. A requested run
 * runs every compactor whatever its threshold, yet its summaries go through the circuit
 * breaker and count like automatic ones: while the breaker is open the summary waits
 * (`circuit_open`, the request stays; `maybeCompact` runs automatically meanwhile), so an
 * outage of the summarizer never stops masking or the last resort.
 */
export function runPolicy(kind: RunKind, contextLimit: number, priced?: PricedTiming): RunPolicy {
  if (kind === "manual") {
    return {
      kind,
      trigger: "manual",
      gate: () => "run",
      landsEachStep: false,
      rethrows: true,
      countsFailures: false,
      detaches: false,
      resetsBreaker: true,
      waitsForLease: true,
    };
  }
  const requested = kind === "requested";
  return {
    kind,
    trigger: requested ? "manual" : "auto",
    gate(compactor, contextUsed, circuitOpen) {
      if (!requested) return autoGate(compactor, contextUsed, circuitOpen, contextLimit, priced);
      return compactor.isAsync === true && circuitOpen ? "circuit_open" : "run";
    },
    landsEachStep: true,
    rethrows: false,
    countsFailures: true,
    detaches: !requested,
    resetsBreaker: false,
    waitsForLease: false,
  };
}
