import type { Attributes } from "@opentelemetry/api";
import { readLlmUsage } from "../core/llm-client.js";
import { allInputTokens, type CompactionUsage } from "../core/usage.js";
import { GEN_AI_ATTRIBUTES } from "./attributes.js";

/** What {@link replyUsage} answers for a reply that carries no usage. */
const NO_USAGE = Object.freeze({ refused: false });

/**
 * The usage a summarizer's reply carries (`LlmReply.usage`), read as the compactors read it:
 * `usage` undefined for a bare string or a reply without one; `refused` for a usage that is not
 * whole numbers ≥ 0, which the compactor reports as a failure (`llm_error`), so the span does too.
 */
export function replyUsage(reply: unknown): { usage?: CompactionUsage; refused: boolean } {
  if (typeof reply !== "object" || reply === null || !("usage" in reply)) return NO_USAGE;
  if (reply.usage === undefined) return NO_USAGE;
  try {
    return { usage: readLlmUsage(reply.usage), refused: false };
  } catch {
    return { refused: true };
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
