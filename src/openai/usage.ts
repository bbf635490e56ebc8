import type { CompactionUsage } from "../core/compactor.js";
import type { Usage } from "../index.js";
import { asCompactionUsage, usageFromCachedInput } from "../internal/cached-usage.js";

/** What {@link usageFromOpenAI} reads of a response's `usage` (the SDK's `ResponseUsage`). */
export interface OpenAIUsageLike {
  input_tokens?: number | null;
  input_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
  } | null;
  output_tokens?: number | null;
}

/**
 * A Responses API usage as the session's `Usage`: OpenAI's `input_tokens` counts cached
 * tokens too, so the uncached part is what is left once `cached_tokens` (cache reads) and
 * `cache_write_tokens` (where reported) are taken out. `undefined` without `input_tokens`.
 *
 * @example
 * const usage = usageFromOpenAI(response.usage);
 * if (usage !== undefined) session.recordUsage(usage);
 */
export function usageFromOpenAI(usage: OpenAIUsageLike | undefined | null): Usage | undefined {
  if (usage === undefined || usage === null || typeof usage.input_tokens !== "number")
    return undefined;
  return usageFromCachedInput({
    input: usage.input_tokens,
    cacheRead: usage.input_tokens_details?.cached_tokens,
    cacheWrite: usage.input_tokens_details?.cache_write_tokens,
    output: usage.output_tokens,
  });
}

/** The same, as what a compaction's own call cost. */
export function compactionUsageFromOpenAI(
  usage: OpenAIUsageLike | undefined | null,
): CompactionUsage | undefined {
  return asCompactionUsage(usageFromOpenAI(usage));
}
