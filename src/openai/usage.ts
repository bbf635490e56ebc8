import type { CompactionUsage } from "../core/compactor.js";
import type { Usage } from "../index.js";

/** What {@link usageFromOpenAI} reads of a response's `usage` (the SDK's `ResponseUsage`). */
export interface OpenAIUsageLike {
  input_tokens?: number | null;
  input_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
  } | null;
  output_tokens?: number | null;
}

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

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
  const input = count(usage.input_tokens);
  const cacheRead = Math.min(input, count(usage.input_tokens_details?.cached_tokens));
  const cacheWrite = Math.min(
    input - cacheRead,
    count(usage.input_tokens_details?.cache_write_tokens),
  );
  const out: Usage = { inputTokens: input - cacheRead - cacheWrite };
  if (cacheWrite > 0) out.cacheCreationInputTokens = cacheWrite;
  if (cacheRead > 0) out.cacheReadInputTokens = cacheRead;
  if (typeof usage.output_tokens === "number") out.outputTokens = count(usage.output_tokens);
  return out;
}

/** The same, as what a compaction's own call cost. */
export function compactionUsageFromOpenAI(
  usage: OpenAIUsageLike | undefined | null,
): CompactionUsage | undefined {
  const found = usageFromOpenAI(usage);
  if (found === undefined) return undefined;
  return { ...found, outputTokens: found.outputTokens ?? 0 };
}
