import type { Compactor } from "./compactor.js";

const targets = new WeakMap<Compactor, number>();

/**
 * Registers the utilization a built-in compactor brings the context down to once it runs (its
 * `targetUtilization`), so a priced session can weigh a rewrite to it (see `RewriteBudget`).
 */
export function registerCompactorTarget(compactor: Compactor, target: number | undefined): void {
  if (target !== undefined) targets.set(compactor, target);
}

/** The utilization `compactor` aims at, when it is one of ours with a target; else `undefined`. */
export function compactorTarget(compactor: Compactor): number | undefined {
  return targets.get(compactor);
}
