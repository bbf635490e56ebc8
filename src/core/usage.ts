import * as z from "zod";
import type { ValidationIssue } from "./errors.js";

/**
 * Tokens one model request billed: the session's `recordUsage`, a compaction's own calls and a
 * price all read this one type. `inputTokens` is uncached input only (Anthropic's
 * `input_tokens`; for OpenAI, `input_tokens` minus `cached_tokens`).
 */
export interface Usage {
  /** Uncached input tokens. */
  inputTokens: number;
  /** Input tokens written to the prompt cache. @default 0 */
  cacheCreationInputTokens?: number;
  /** Input tokens read from the prompt cache. @default 0 */
  cacheReadInputTokens?: number;
  /** Tokens of the reply (it joins the context of the next request). @default 0 */
  outputTokens?: number;
}

/** What a compaction's own model calls used: a {@link Usage} whose output is always counted. */
export interface CompactionUsage extends Usage {
  /** Output tokens (the summary, and any thinking before it). */
  outputTokens: number;
}

/** The counts a {@link Usage} may leave out (absent counts 0). */
const OPTIONAL_COUNTS = [
  "cacheCreationInputTokens",
  "cacheReadInputTokens",
  "outputTokens",
] as const;

/** Every input token of a request: uncached, written to the cache and read from it. */
export function allInputTokens(usage: Usage): number {
  return (
    usage.inputTokens + (usage.cacheCreationInputTokens ?? 0) + (usage.cacheReadInputTokens ?? 0)
  );
}

/**
 * The sum of two usages, a new object: each optional count is in the sum when either part
 * reported it (absent counts 0). A `total` still undefined is `more`, copied.
 */
export function addUsage<T extends Usage>(total: T, more: Usage): T;
export function addUsage<T extends Usage>(total: T | undefined, more: T): T;
export function addUsage(total: Usage | undefined, more: Usage): Usage {
  if (total === undefined) return { ...more };
  const sum: Usage = { inputTokens: total.inputTokens + more.inputTokens };
  for (const key of OPTIONAL_COUNTS) {
    if (total[key] !== undefined || more[key] !== undefined)
      sum[key] = (total[key] ?? 0) + (more[key] ?? 0);
  }
  return sum;
}

/**
 * What is wrong with a reported usage: each token count must be a whole number ≥ 0 (no
 * `NaN`, no `Infinity`, nothing negative); `inputTokens` is required, the others optional.
 */
export function usageIssues(
  usage: unknown,
  required: readonly (keyof CompactionUsage)[] = ["inputTokens"],
): ValidationIssue[] {
  if (typeof usage !== "object" || usage === null || Array.isArray(usage)) {
    return [{ path: [], message: "must be a usage object" }];
  }
  const record = usage as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  for (const field of ["inputTokens", ...OPTIONAL_COUNTS] as const) {
    const value = record[field];
    if (value === undefined) {
      if (required.includes(field)) issues.push({ path: [field], message: "is required" });
      continue;
    }
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      issues.push({ path: [field], message: "must be a whole number ≥ 0" });
    }
  }
  return issues;
}

const tokenCount = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more");

/** A token count as a provider's usage reports it: a whole number ≥ 0, `null` or absent. */
export const PROVIDER_TOKEN_COUNT_SCHEMA = z
  .number({ error: "must be a number or null" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more")
  .nullish();

/** Schema of {@link Usage}. */
export const UsageSchema = z.strictObject({
  inputTokens: tokenCount,
  cacheCreationInputTokens: tokenCount.exactOptional(),
  cacheReadInputTokens: tokenCount.exactOptional(),
  outputTokens: tokenCount.exactOptional(),
});
