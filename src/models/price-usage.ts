import { ValidationError } from "../core/errors.js";
import { allInputTokens, type Usage, usageIssues } from "../core/usage.js";
import { definePricing, type ModelPricing, type ResolvedModelPricing } from "./model-pricing.js";

/** The session's {@link Usage}, by the name the pricing API gave it first: one type, two names. */
export type TokenUsage = Usage;

/** What one request cost, in US dollars, by kind of token. */
export interface UsageCost {
  /** Uncached input. */
  inputUsd: number;
  /** Cache writes. */
  cacheWriteUsd: number;
  /** Cache reads. */
  cacheReadUsd: number;
  /** Output. */
  outputUsd: number;
  /** The sum of the four. */
  totalUsd: number;
}

/** Options of {@link priceUsage}. */
export interface PriceUsageOptions {
  /** How long the request's cache writes are kept, which sets their price. @default "5m" */
  cacheWriteTtl?: "5m" | "1h";
}

const checked = new WeakMap<object, ResolvedModelPricing>();

/** The pricing checked once per object (a preset or the caller's own table). */
function resolve(pricing: ModelPricing): ResolvedModelPricing {
  const known = checked.get(pricing);
  if (known !== undefined) return known;
  const resolved = definePricing(pricing);
  checked.set(pricing, resolved);
  checked.set(resolved, resolved);
  return resolved;
}

/**
 * What one request cost at `pricing`: uncached input at the input price, cache writes and reads
 * at their multipliers of it, output at the output price; a prompt (input + writes + reads)
 * above `longContext.aboveTokens` bills every token at the long rates. Pure.
 *
 * @example
 * const { totalUsd } = priceUsage(usageFromAnthropic(response.usage), PRICING_PRESETS["claude-sonnet-5-5"]);
 * @throws {ValidationError} naming the field when a count is not a whole number ≥ 0, or a price
 *   is missing, negative or not finite.
 */
export function priceUsage(
  usage: TokenUsage,
  pricing: ModelPricing,
  options: PriceUsageOptions = {},
): UsageCost {
  const issues = usageIssues(usage);
  if (issues.length > 0) throw new ValidationError("usage", issues);
  const rates = resolve(pricing);
  const writes = usage.cacheCreationInputTokens ?? 0;
  const reads = usage.cacheReadInputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const prompt = allInputTokens(usage);
  const long = rates.longContext !== undefined && prompt > rates.longContext.aboveTokens;
  const input = long ? rates.longContext!.inputPerMTok : rates.inputPerMTok;
  const outputRate = long ? rates.longContext!.outputPerMTok : rates.outputPerMTok;
  const writeMultiplier =
    options.cacheWriteTtl === "1h" ? rates.cacheWrite1hMultiplier : rates.cacheWrite5mMultiplier;
  const inputUsd = (usage.inputTokens * input) / 1e6;
  const cacheWriteUsd = (writes * input * writeMultiplier) / 1e6;
  const cacheReadUsd = (reads * input * rates.cacheReadMultiplier) / 1e6;
  const outputUsd = (output * outputRate) / 1e6;
  return {
    inputUsd,
    cacheWriteUsd,
    cacheReadUsd,
    outputUsd,
    totalUsd: inputUsd + cacheWriteUsd + cacheReadUsd + outputUsd,
  };
}
