import type { LanguageModelUsage } from "ai";
import type { Usage } from "../core/usage.js";

/** What {@link usageFromAiSdk} reads of a step's or a result's `usage`. */
export type AiSdkUsageLike = Pick<LanguageModelUsage, "inputTokens" | "outputTokens"> &
  Partial<Pick<LanguageModelUsage, "inputTokenDetails" | "cachedInputTokens">>;

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;

/**
 * A step's usage (`LanguageModelUsage`) as the session's `Usage`: the AI SDK's `inputTokens`
 * counts cached tokens too, so the uncached part is what `inputTokenDetails` leaves once cache
 * reads and writes are taken out. `undefined` when the provider reported no input tokens.
 *
 * @example
 * const usage = usageFromAiSdk(result.usage);
 * if (usage !== undefined) session.recordUsage(usage);
 */
export function usageFromAiSdk(usage: AiSdkUsageLike | undefined | null): Usage | undefined {
  const input = count(usage?.inputTokens);
  if (usage === undefined || usage === null || input === undefined) return undefined;
  const details = usage.inputTokenDetails;
  const cacheRead = count(details?.cacheReadTokens) ?? count(usage.cachedInputTokens) ?? 0;
  const cacheWrite = count(details?.cacheWriteTokens) ?? 0;
  const uncached = count(details?.noCacheTokens) ?? Math.max(0, input - cacheRead - cacheWrite);
  const out: Usage = { inputTokens: uncached };
  if (cacheWrite > 0) out.cacheCreationInputTokens = cacheWrite;
  if (cacheRead > 0) out.cacheReadInputTokens = cacheRead;
  const output = count(usage.outputTokens);
  if (output !== undefined) out.outputTokens = output;
  return out;
}
