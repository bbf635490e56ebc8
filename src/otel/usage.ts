import type { Attributes } from "@opentelemetry/api";
import type { CompactionUsage } from "../core/compactor.js";
import { GEN_AI_ATTRIBUTES } from "./attributes.js";

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0;

/**
 * The usage a summarizer's reply carries, when it carries one: a reply object with a `usage`
 * holding `inputTokens` and `outputTokens` (and the cache counts). A bare string carries none.
 */
export function replyUsage(reply: unknown): CompactionUsage | undefined {
  if (typeof reply !== "object" || reply === null || !("usage" in reply)) return undefined;
  const usage: unknown = reply.usage;
  if (typeof usage !== "object" || usage === null) return undefined;
  const { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens } =
    usage as Record<string, unknown>;
  if (!isCount(inputTokens) || !isCount(outputTokens)) return undefined;
  return {
    inputTokens,
    outputTokens,
    ...(isCount(cacheReadInputTokens) ? { cacheReadInputTokens } : {}),
    ...(isCount(cacheCreationInputTokens) ? { cacheCreationInputTokens } : {}),
  };
}

/**
 * The GenAI usage attributes of a request: `input_tokens` counts every input token, cached
 * ones included ("SHOULD include all types of input tokens"), where our usage, like
 * Anthropic's, counts the uncached ones alone.
 */
export function genAiUsageAttributes(usage: CompactionUsage): Attributes {
  const read = usage.cacheReadInputTokens ?? 0;
  const write = usage.cacheCreationInputTokens ?? 0;
  return {
    [GEN_AI_ATTRIBUTES.USAGE_INPUT_TOKENS]: usage.inputTokens + read + write,
    [GEN_AI_ATTRIBUTES.USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [GEN_AI_ATTRIBUTES.USAGE_CACHE_READ_INPUT_TOKENS]: read,
    [GEN_AI_ATTRIBUTES.USAGE_CACHE_WRITE_INPUT_TOKENS]: write,
  };
}
