import type { Compactor } from "../core/compactor.js";
import { compactorTarget } from "../core/compactor.js";
import type { Clock } from "../core/message-factory.js";
import type { OverheadAboveTrigger } from "../core/models.js";
import type { CompactionUsage } from "../core/usage.js";
import type { ResolvedModelPricing } from "../pricing/model-pricing.js";
import { RewriteBudget } from "../pricing/rewrite-budget.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import type { CompactionCommit } from "./compaction-commit.js";
import type { CompactionHooks } from "./compaction-hooks.js";
import type { CompactionEvent } from "./events.js";
import type { History } from "./history.js";
import type { SessionLimits } from "./options.js";

/** Options of one run. */
export interface CompactionRunOptions {
  signal?: AbortSignal;
  instructions?: string;
  /** Called when an automatic run starts a summary (background mode stops waiting there). */
  detach?: () => void;
  /**
   * Awaited before a detached summary is applied: background mode applies it at the next
   * `maybeCompact`, where the conversation ends in a user message, never mid-exchange.
   */
  beforeApply?: () => Promise<void>;
}

/** What the runner needs from its session. */
export interface CompactionRunnerSettings {
  /** Told each compaction's reported usage (the session prices it). */
  onUsage?: (usage: CompactionUsage) => void;
  history: History;
  contextLimit: number;
  compactors: readonly Compactor[];
  maxConsecutiveFailures: number;
  trimTarget: number | undefined; // trimOnOverflow's target utilization, undefined when off
  clock: Clock;
  emit: (event: CompactionEvent) => void;
  /** Reports a problem with the window once per kind (an event and a logger warning). */
  warn?: (problem: OverheadAboveTrigger) => void;
  hooks: CompactionHooks;
  /** Where what compactions remove is kept; `undefined` with `archive: false`. */
  archive: ArchiveKeeper | undefined;
  /** Keep thinking blocks an edit made stale (the app sends `drop_block`). */
  keepStaleThinking: boolean;
  /** How a replacement lands: at once in memory, by compare-and-swap in a store. */
  commit: CompactionCommit;
  /** Time limits of hooks, custom compactors and the archive; the breaker's cooldown. */
  limits: SessionLimits;
  /** When the session knows its prices: automatic runs compact once a rewrite repays itself. */
  pricedTiming?: PricedTiming | undefined;
}

/** A priced session's timing: the budget, and the compactor whose target is its floor. */
export interface PricedTiming {
  budget: RewriteBudget;
  compactor: Compactor;
}

/** `target` whose `key` reads `read()` each time: a value that follows the session's window. */
export function live<T extends object, K extends string>(
  target: T,
  key: K,
  read: () => number,
): T & Record<K, number> {
  return Object.defineProperty(target, key, { get: read, enumerable: true }) as T &
    Record<K, number>;
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
