import * as z from "zod/mini";
import type { CompactionUsage, Usage } from "../core/usage.js";
import { PROVIDER_TOKEN_COUNT_SCHEMA } from "../core/usage.js";
import { parseReadable } from "../internal/unreadable.js";

/** What {@link usageFromGemini} reads of a response's `usageMetadata` (the SDK's `GenerateContentResponseUsageMetadata`). */
export interface GeminiUsageLike {
  /** Every token of the prompt, those read from the cache included. */
  promptTokenCount?: number | null;
  /** The prompt's tokens read from the cache (implicit or explicit caching). */
  cachedContentTokenCount?: number | null;
  /** The reply's tokens. */
  candidatesTokenCount?: number | null;
  /** The thinking's tokens (billed as output). */
  thoughtsTokenCount?: number | null;
}

const tokenCount = PROVIDER_TOKEN_COUNT_SCHEMA;

const GeminiUsageSchema = z.looseObject(
  {
    promptTokenCount: tokenCount,
    cachedContentTokenCount: tokenCount,
    candidatesTokenCount: tokenCount,
    thoughtsTokenCount: tokenCount,
  },
  { error: "must be a usage object, null or undefined" },
);

/**
 * A `generateContent` response's `usageMetadata` as the session's `Usage`: Gemini's
 * `promptTokenCount` counts cached tokens too, so the uncached input is what is left once
 * `cachedContentTokenCount` (cache reads) is taken out; the output is the reply's tokens and the
 * thinking's (`thoughtsTokenCount`, billed as output). Gemini bills no cache writes for implicit
 * caching. `toolUsePromptTokenCount` (what server-side tools such as search read) is left out: it
 * is not part of the conversation the next request sends. `undefined` without
 * `promptTokenCount`: record nothing rather than a context of zero.
 *
 * @example
 * const usage = usageFromGemini(response.usageMetadata);
 * if (usage !== undefined) session.recordUsage(usage);
 * @throws {ValidationError} when a count is present but not a whole number ≥ 0, or a getter
 * (or proxy's trap) of it threw.
 */
export function usageFromGemini(usage: GeminiUsageLike | null | undefined): Usage | undefined {
  const parsed = parseReadable(z.nullish(GeminiUsageSchema), usage, "Gemini usageMetadata");
  if (parsed == null || parsed.promptTokenCount == null) return undefined;
  const prompt = parsed.promptTokenCount;
  const cached = Math.min(prompt, parsed.cachedContentTokenCount ?? 0);
  const out: Usage = { inputTokens: prompt - cached };
  if (cached > 0) out.cacheReadInputTokens = cached;
  if (parsed.candidatesTokenCount != null || parsed.thoughtsTokenCount != null)
    out.outputTokens = (parsed.candidatesTokenCount ?? 0) + (parsed.thoughtsTokenCount ?? 0);
  return out;
}

/** The same, as what a summary request cost (output 0 when not reported). */
export function compactionUsageFromGemini(
  usage: GeminiUsageLike | null | undefined,
): CompactionUsage | undefined {
  const found = usageFromGemini(usage);
  if (found === undefined) return undefined;
  return {
    inputTokens: found.inputTokens,
    outputTokens: found.outputTokens ?? 0,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: found.cacheReadInputTokens ?? 0,
  };
}
