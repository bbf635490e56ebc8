import * as z from "zod/mini";
import { PROVIDER_TOKEN_COUNT_SCHEMA, type Usage } from "../core/usage.js";
import { parseReadable } from "../internal/unreadable.js";

/**
 * The token fields of an Anthropic usage object: the SDK's `Usage`, `MessageDeltaUsage`
 * and the beta variants all fit. Missing and `null` fields count as absent.
 */
export interface AnthropicUsageLike {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
}

const AnthropicUsageSchema = z.looseObject(
  {
    input_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    cache_creation_input_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    cache_read_input_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
    output_tokens: PROVIDER_TOKEN_COUNT_SCHEMA,
  },
  { error: "must be a usage object, null or undefined" },
);

/**
 * Converts the usage of an Anthropic response to ours, null-safe. Without `input_tokens`
 * (no usage at all, or a streaming delta that left it `null`) the context size is unknown
 * and the result is `undefined`: record nothing rather than a context of zero.
 *
 * @example
 * const usage = usageFromAnthropic(response.usage);
 * if (usage) session.recordUsage(usage);
 * @throws {ValidationError} when a field is present but not a whole number ≥ 0, or a getter
 * (or proxy's trap) of it threw.
 */
export function usageFromAnthropic(usage: AnthropicUsageLike & { input_tokens: number }): Usage;
export function usageFromAnthropic(usage: AnthropicUsageLike | null | undefined): Usage | undefined;
export function usageFromAnthropic(
  usage: AnthropicUsageLike | null | undefined,
): Usage | undefined {
  const parsed = parseReadable(z.nullish(AnthropicUsageSchema), usage, "Anthropic usage");
  if (parsed == null || parsed.input_tokens == null) return undefined;
  const out: Usage = { inputTokens: parsed.input_tokens };
  if (parsed.cache_creation_input_tokens != null)
    out.cacheCreationInputTokens = parsed.cache_creation_input_tokens;
  if (parsed.cache_read_input_tokens != null)
    out.cacheReadInputTokens = parsed.cache_read_input_tokens;
  if (parsed.output_tokens != null) out.outputTokens = parsed.output_tokens;
  return out;
}
