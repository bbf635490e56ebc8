import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { CompactionUsage } from "../core/usage.js";
import { PROVIDER_TOKEN_COUNT_SCHEMA, type Usage } from "../core/usage.js";
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

const OpenAIUsageSchema = z.looseObject(
  {
    input_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    input_tokens_details: z.nullish(
      z.looseObject(
        {
          cached_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
          cache_write_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
        },
        { error: "must be an object or null" },
      ),
    ),
    output_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
  },
  { error: "must be a usage object, null or undefined" },
);

/**
 * A Responses API usage as the session's `Usage`: OpenAI's `input_tokens` counts cached
 * tokens too, so the uncached part is what is left once `cached_tokens` (cache reads) and
 * `cache_write_tokens` (where reported) are taken out. `undefined` without `input_tokens`.
 *
 * @example
 * const usage = usageFromOpenAI(response.usage);
 * if (usage !== undefined) session.recordUsage(usage);
 * @throws {ValidationError} naming the field when a count is present but not a whole number ≥ 0.
 */
export function usageFromOpenAI(usage: OpenAIUsageLike | undefined | null): Usage | undefined {
  const parsed = parseOrThrow(z.nullish(OpenAIUsageSchema), usage, "OpenAI usage");
  if (parsed == null || parsed.input_tokens == null) return undefined;
  return usageFromCachedInput({
    input: parsed.input_tokens,
    cacheRead: parsed.input_tokens_details?.cached_tokens,
    cacheWrite: parsed.input_tokens_details?.cache_write_tokens,
    output: parsed.output_tokens,
  });
}

/** The same, as what a compaction's own call cost. */
export function compactionUsageFromOpenAI(
  usage: OpenAIUsageLike | undefined | null,
): CompactionUsage | undefined {
  return asCompactionUsage(usageFromOpenAI(usage));
}
