// The pricing concept: price tables, the cost of one usage, and a running total.
export { CostAccumulator, type CostSummary, type CostTotals } from "./cost-accumulator.js";
export {
  DEFAULT_MODEL_PRICING,
  definePricing,
  type LongContextPricing,
  type ModelPricing,
  ModelPricingSchema,
  type ResolvedModelPricing,
} from "./model-pricing.js";
export { PRICING_PRESETS, type PricedModel, pricingForModel } from "./presets.js";
export {
  type PriceUsageOptions,
  priceUsage,
  type TokenUsage,
  type UsageCost,
} from "./price-usage.js";
