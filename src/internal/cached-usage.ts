import type { CompactionUsage, Usage } from "../core/usage.js";

/** A reported token count as a whole number ≥ 0 (anything else counts 0). */
const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * The session's `Usage` from an OpenAI-style report, whose input count includes the cached
 * tokens: the uncached part is what is left once the cache reads and writes are taken out
 * (each clamped to what is left, so nothing goes negative). `output` only when reported.
 */
export function usageFromCachedInput(counts: {
  input: unknown;
  cacheRead: unknown;
  cacheWrite: unknown;
  output: unknown;
}): Usage {
  const input = count(counts.input);
  const cacheRead = Math.min(input, count(counts.cacheRead));
  const cacheWrite = Math.min(input - cacheRead, count(counts.cacheWrite));
  const out: Usage = { inputTokens: input - cacheRead - cacheWrite };
  if (cacheWrite > 0) out.cacheCreationInputTokens = cacheWrite;
  if (cacheRead > 0) out.cacheReadInputTokens = cacheRead;
  if (typeof counts.output === "number") out.outputTokens = count(counts.output);
  return out;
}

/** A usage as what a compaction's own call cost (`outputTokens` always set). */
export function asCompactionUsage(usage: Usage | undefined): CompactionUsage | undefined {
  if (usage === undefined) return undefined;
  return { ...usage, outputTokens: usage.outputTokens ?? 0 };
}
