import type { CompletionUsage } from "openai/resources/completions";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import { type CompactionUsage, PROVIDER_TOKEN_COUNT_SCHEMA, type Usage } from "../core/usage.js";
import { asCompactionUsage, usageFromCachedInput } from "../internal/cached-usage.js";

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

const ChatCompletionUsageSchema = z.looseObject(
  {
    prompt_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    completion_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    prompt_tokens_details: z.nullish(
      z.looseObject(
        {
          cached_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
          cache_write_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
        },
        { error: "must be an object or null" },
      ),
    ),
    prompt_cache_hit_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    cached_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
  },
  { error: "must be a usage object, null or undefined" },
);

/** The first of the values that is a number. */
const firstNumber = (...values: unknown[]): number | undefined =>
  values.find((value): value is number => typeof value === "number");

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
 * @throws {ValidationError} naming the field when a count is present but not a whole number ≥ 0.
 */
export function usageFromChatCompletion(
  usage: ChatCompletionUsageLike | undefined | null,
): Usage | undefined {
  const parsed = parseOrThrow(z.nullish(ChatCompletionUsageSchema), usage, "chat completion usage");
  if (parsed == null || parsed.prompt_tokens == null) return undefined;
  const details = parsed.prompt_tokens_details;
  return usageFromCachedInput({
    input: parsed.prompt_tokens,
    cacheRead: firstNumber(
      details?.cached_tokens,
      parsed.prompt_cache_hit_tokens,
      parsed.cached_tokens,
    ),
    cacheWrite: details?.cache_write_tokens,
    output: parsed.completion_tokens,
  });
}

/** The same, as what a summary request cost (`outputTokens` always set). */
export function compactionUsageFromChatCompletion(
  usage: ChatCompletionUsageLike | undefined | null,
): CompactionUsage | undefined {
  return asCompactionUsage(usageFromChatCompletion(usage));
}
