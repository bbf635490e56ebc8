import type { Attributes } from "@opentelemetry/api";
import { readLlmUsage } from "../core/llm-client.js";
import { allInputTokens, type CompactionUsage } from "../core/usage.js";
import { GEN_AI_ATTRIBUTES } from "./attributes.js";

/**
 * The usage a summarizer's reply carries (`LlmReply.usage`), read as the compactors read it;
 * `undefined` for a bare string or a usage that is not whole numbers ≥ 0 (the compactor reports
 * that one as a failure; the span only goes without usage).
 */
export function replyUsage(reply: unknown): CompactionUsage | undefined {
  if (typeof reply !== "object" || reply === null || !("usage" in reply)) return undefined;
  if (reply.usage === undefined) return undefined;
  try {
    return readLlmUsage(reply.usage);
  } catch {
    return undefined;
  }
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
    [GEN_AI_ATTRIBUTES.USAGE_INPUT_TOKENS]: allInputTokens(usage),
    [GEN_AI_ATTRIBUTES.USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [GEN_AI_ATTRIBUTES.USAGE_CACHE_READ_INPUT_TOKENS]: read,
    [GEN_AI_ATTRIBUTES.USAGE_CACHE_WRITE_INPUT_TOKENS]: write,
  };
}
