import type { CompactionContext } from "../core/compactor.js";

/**
 * The token budget the messages must fit after a compaction aimed at `targetUtilization`, or
 * `undefined` when there is no target (none configured, no context limit known, or a manual
 * compaction, which compacts everything eligible). What the session's measure counts beyond
 * the messages (system prompt, tools) is taken off the budget.
 */
export function targetBudget(
  targetUtilization: number | undefined,
  context: CompactionContext | undefined,
  messagesEstimate: number,
): number | undefined {
  if (targetUtilization === undefined || context?.trigger === "manual") return undefined;
  const limit = context?.contextLimit;
  if (limit === undefined || !Number.isFinite(limit) || !(limit > 0)) return undefined;
  const used = context?.contextUsed;
  const overhead =
    used === undefined || !Number.isFinite(used) ? 0 : Math.max(0, used - messagesEstimate);
  // The system prompt and tools alone over the window (or a usage far above the estimate): no
  // target can be met, and removing everything down to one would only lose context.
  if (overhead >= limit) return undefined;
  return Math.floor(targetUtilization * limit) - overhead;
}

/**
 * The minimum gain in the estimate's tokens (`clearAtLeast` is the provider's: see
 * `tokenRatio`); none for manual compactions, which the user asked for.
 */
export function minimumGain(clearAtLeast: number, context: CompactionContext | undefined): number {
  return context?.trigger === "manual" ? 0 : inEstimateTokens(clearAtLeast, context);
}

/** `tokens` of the provider's as the local estimate counts them (see `tokenRatio`). */
export function inEstimateTokens(tokens: number, context: CompactionContext | undefined): number {
  return Math.floor(tokens / (context?.tokenRatio ?? 1));
}
