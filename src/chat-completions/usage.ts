import type { CompletionUsage } from "openai/resources/completions";
import type { CompactionUsage, Usage } from "../core/usage.js";
import { asCompactionUsage, usageFromCachedInput } from "../internal/cached-usage.js";
import { isPlainObject } from "../internal/plain-object.js";

/**
 * What {@link usageFromChatCompletion} reads of a completion's `usage`: OpenAI's
 * `CompletionUsage`, with the cache fields compatible hosts report (`prompt_cache_hit_tokens`
 * from DeepSeek, a top-level `cached_tokens` from Moonshot).
 */
export type ChatCompletionUsageLike = Partial<
  Pick<CompletionUsage, "prompt_tokens" | "completion_tokens">
> & {
  prompt_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
  } | null;
  prompt_cache_hit_tokens?: number | null;
  cached_tokens?: number | null;
};

/** The first of the values that is a number. */
const firstNumber = (...values: unknown[]): unknown =>
  values.find((value) => typeof value === "number");

/**
 * A Chat Completions usage as the session's `Usage`: `prompt_tokens` counts cached tokens too,
 * so the uncached part is what is left once the cache reads (`prompt_tokens_details.cached_tokens`,
 * or DeepSeek's `prompt_cache_hit_tokens`, or Moonshot's `cached_tokens`) and writes
 * (`prompt_tokens_details.cache_write_tokens`, OpenRouter) are taken out. `undefined` without
 * `prompt_tokens` (Ollama and others report none when streaming without `include_usage`).
 *
 * @example
 * const usage = usageFromChatCompletion(completion.usage);
 * if (usage !== undefined) session.recordUsage(usage);
 */
export function usageFromChatCompletion(
  usage: ChatCompletionUsageLike | undefined | null,
): Usage | undefined {
  if (!isPlainObject(usage) || typeof usage.prompt_tokens !== "number") return undefined;
  const details = isPlainObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  return usageFromCachedInput({
    input: usage.prompt_tokens,
    cacheRead: firstNumber(
      details.cached_tokens,
      usage.prompt_cache_hit_tokens,
      usage.cached_tokens,
    ),
    cacheWrite: details.cache_write_tokens,
    output: usage.completion_tokens,
  });
}

/** The same, as what a summary request cost (`outputTokens` always set). */
export function compactionUsageFromChatCompletion(
  usage: ChatCompletionUsageLike | undefined | null,
): CompactionUsage | undefined {
  return asCompactionUsage(usageFromChatCompletion(usage));
}
