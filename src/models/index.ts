/**
 * `agent-compaction/models`: what the library knows of current models, by name: their context
 * windows and output limits, and their prices at cache rates (with a running total in
 * dollars). Pure data and arithmetic; runs anywhere. A session takes `model` and `pricing`
 * options built on these, and reports `session.cost`.
 *
 * @example
 * import { CostAccumulator, PRICING_PRESETS, contextWindowOf } from "agent-compaction/models";
 *
 * contextWindowOf("claude-sonnet-5-5"); // its window, in tokens
 * const costs = new CostAccumulator(PRICING_PRESETS["claude-fable-5-1"]);
 * costs.addRequest({ inputTokens: 2_000, cacheReadInputTokens: 150_000, outputTokens: 800 });
 *
 * @packageDocumentation
 */
export { type ContextOverflowRefusal, contextOverflowOf } from "../core/context-overflow.js";
export { CostAccumulator, type CostSummary, type CostTotals } from "./cost-accumulator.js";
export {
  type ConfiguredWindowProblem,
  checkConfiguredWindow,
  checkReportedUsage,
  contextWindowOf,
  KNOWN_MODEL_LIMITS,
  type ModelLimits,
  modelLimitsOf,
  type OverheadAboveTrigger,
  type RefusedAboveWindow,
  resolveContextLimit,
  type UsageAboveWindow,
} from "./model-limits.js";
export {
  DEFAULT_MODEL_PRICING,
  definePricing,
  type LongContextPricing,
  type ModelPricing,
  ModelPricingSchema,
  type ResolvedModelPricing,
} from "./model-pricing.js";
export { type KnownModel, MODEL_TABLE, type ModelRow } from "./model-table.js";
export { PRICING_PRESETS, type PricedModel, pricingForModel } from "./presets.js";
export {
  type PriceUsageOptions,
  priceUsage,
  type TokenUsage,
  type UsageCost,
} from "./price-usage.js";
