import type { UsageMetadata } from "@langchain/core/messages";
import type { Usage } from "../core/usage.js";

/** What {@link usageFromLangChain} reads of an `AIMessage`'s `usage_metadata`. */
export type LangChainUsageLike = Pick<UsageMetadata, "input_tokens"> &
  Partial<Pick<UsageMetadata, "output_tokens" | "input_token_details">>;

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;

/**
 * An `AIMessage`'s `usage_metadata` as the session's `Usage`: LangChain's `input_tokens` sums
 * every input token, so the uncached part is what is left once `input_token_details`'
 * `cache_read` and `cache_creation` are taken out. `undefined` when no input tokens were
 * reported (a fake model, a provider that sends none).
 *
 * @example
 * const usage = usageFromLangChain(reply.usage_metadata);
 * if (usage !== undefined) session.recordUsage(usage);
 */
export function usageFromLangChain(
  usage: LangChainUsageLike | undefined | null,
): Usage | undefined {
  const input = count(usage?.input_tokens);
  if (usage === undefined || usage === null || input === undefined) return undefined;
  const details = usage.input_token_details;
  const cacheRead = count(details?.cache_read) ?? 0;
  const cacheWrite = count(details?.cache_creation) ?? 0;
  const out: Usage = { inputTokens: Math.max(0, input - cacheRead - cacheWrite) };
  if (cacheWrite > 0) out.cacheCreationInputTokens = cacheWrite;
  if (cacheRead > 0) out.cacheReadInputTokens = cacheRead;
  const output = count(usage.output_tokens);
  if (output !== undefined) out.outputTokens = output;
  return out;
}
