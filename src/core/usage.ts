import * as z from "zod/mini";
import { safeParse, type ValidationIssue } from "./errors.js";
import { NON_NEGATIVE_INT_SCHEMA } from "./option-schemas.js";

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

/** The context a usage says the next request starts from: every input token and the reply. */
export function contextTokens(usage: Usage): number {
  return allInputTokens(usage) + (usage.outputTokens ?? 0);
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

/** A token count of a usage: a whole number ≥ 0 (no `NaN`, no `Infinity`, nothing negative). */
const TOKEN_COUNT_SCHEMA = NON_NEGATIVE_INT_SCHEMA;

const USAGE_FIELDS = {
  inputTokens: TOKEN_COUNT_SCHEMA,
  cacheCreationInputTokens: z.exactOptional(TOKEN_COUNT_SCHEMA),
  cacheReadInputTokens: z.exactOptional(TOKEN_COUNT_SCHEMA),
  outputTokens: z.exactOptional(TOKEN_COUNT_SCHEMA),
};

/** Schema of {@link Usage}: every count a whole number ≥ 0, no unknown fields. */
export const UsageSchema = z.strictObject(USAGE_FIELDS);

/** A usage as a client or an API reports it: the same counts, other fields let through. */
const REPORTED_USAGE_SCHEMA = z.looseObject(USAGE_FIELDS, {
  error: (issue) => (issue.code === "invalid_type" ? "must be a usage object" : undefined),
});

/** What is wrong with a reported usage (see {@link UsageSchema}; other fields are let through). */
export function usageIssues(usage: unknown): ValidationIssue[] {
  const parsed = safeParse(REPORTED_USAGE_SCHEMA, usage);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    path: issue.path.filter((part) => typeof part !== "symbol"),
    message: issue.message,
  }));
}

/**
 * A token count as a provider's usage reports it: a whole number ≥ 0, `null` or absent. Pure:
 * a bundle that reads no provider's usage (the session's) leaves out zod's nullable schema.
 */
export const PROVIDER_TOKEN_COUNT_SCHEMA = /* @__PURE__ */ z.nullish(NON_NEGATIVE_INT_SCHEMA);
