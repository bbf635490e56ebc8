import type { Compactor } from "../core/compactor.js";
import { compactorTarget } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import type { CostAccumulator } from "../models/cost-accumulator.js";
import type { ResolvedModelPricing } from "../models/model-pricing.js";
import { RewriteBudget } from "../models/rewrite-budget.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import type { BackgroundGate } from "./background.js";
import type { CompactionCommit } from "./compaction-commit.js";
import type { CompactionHooks } from "./compaction-hooks.js";
import type { CompactionRunOutcome } from "./compaction-report.js";
import type { History } from "./history.js";
import type { ComputedStep } from "./landing.js";
import type { SessionLimits } from "./options.js";
import type { RunPolicy } from "./run-policy.js";
import type { SessionEvents } from "./session-events.js";

/** Options of one run. */
export interface CompactionRunOptions {
  signal?: AbortSignal;
  instructions?: string;
  /**
   * Background mode's gate: an automatic run that starts a summary detaches from its call, and
   * applies the summary at the next `maybeCompact`, where the conversation ends in a user
   * message, never mid-exchange.
   */
  background?: BackgroundGate;
}

/** What the runner needs from its session: its parts, no callbacks. */
export interface CompactionRunnerSettings {
  /** The history; its meter holds the session's window. */
  history: History;
  compactors: readonly Compactor[];
  maxConsecutiveFailures: number;
  trimTarget: number | undefined; // trimOnOverflow's target utilization, undefined when off
  clock: Clock;
  /** Where events, and problems with the window (once per kind), go. */
  events: SessionEvents;
  hooks: CompactionHooks;
  /** Where what compactions remove is kept; `undefined` with `archive: false`. */
  archive: ArchiveKeeper | undefined;
  /** Keep thinking blocks an edit made stale (the app sends `drop_block`). */
  keepStaleThinking: boolean;
  /** How a replacement lands: at once in memory, by compare-and-swap in a store. */
  commit: CompactionCommit;
  /** Time limits of hooks, custom compactors and the archive; the breaker's cooldown. */
  limits: SessionLimits;
  /** What the session costs, when it knows its prices: each compaction's usage is added. */
  costs?: CostAccumulator | undefined;
  /** When the session knows its prices: automatic runs compact once a rewrite repays itself. */
  pricedTiming?: PricedTiming | undefined;
}

/** A priced session's timing: the budget, and the compactor whose target is its floor. */
export interface PricedTiming {
  budget: RewriteBudget;
  compactor: Compactor;
}

/**
 * What times a priced session's automatic compactions: a budget from its prices and the target
 * of its first compactor that has one, and that compactor; `undefined` without prices or such a
 * compactor.
 */
export function pricedTiming(
  pricing: ResolvedModelPricing | undefined,
  compactors: readonly Compactor[],
  contextLimit: number,
): PricedTiming | undefined {
  if (pricing === undefined) return undefined;
  for (const compactor of compactors) {
    const target = compactorTarget(compactor);
    if (target === undefined) continue;
    return { budget: new RewriteBudget(pricing, Math.floor(target * contextLimit)), compactor };
  }
  return undefined;
}

/** One run's state: the conversation the pending results were computed from, and them. */
export interface RunState {
  readonly policy: RunPolicy;
  readonly options: CompactionRunOptions;
  readonly outcome: CompactionRunOutcome;
  from: readonly Message[];
  generation: number;
  working: readonly Message[];
  pending: ComputedStep[];
  /** The commit step's `begin`, once called: whether this worker may compact. */
  began: Promise<boolean> | undefined;
  /** The last compactor this run ran (it was due), whether or not it changed anything. */
  ran?: Compactor;
  /** Whether a compactor's change landed in this run. */
  landed?: boolean;
  /** Whether the run's failure is the archive's (a compactor's result could not be kept). */
  archiveFailed?: boolean;
}
