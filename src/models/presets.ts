import type { ModelPricing } from "./model-pricing.js";
import { type KnownModel, MODEL_TABLE, type ModelRow, modelOf } from "./model-table.js";

/** A model id with prices in the model table (see {@link PRICING_PRESETS}). */
export type PricedModel = {
  [Id in KnownModel]: (typeof MODEL_TABLE)[Id] extends { pricing: ModelPricing } ? Id : never;
}[KnownModel];

/** The prices of each priced model, as the model table holds them. */
type PricingPresets = {
  readonly [Id in PricedModel]: Extract<(typeof MODEL_TABLE)[Id], { pricing: unknown }>["pricing"];
};

/**
 * Price tables of current models, by model id: Claude Fable 5.1, Opus 5.5, Sonnet 5.5 and
 * Haiku 5.5; OpenAI GPT-6.2 Astra, GPT-6.1 Sol and GPT-6 Luna; Gemini 4 Argon, Neon and
 * Hydrogen, 3.8 Flash, 3.1 Pro, 3 Flash, 2.5 Pro, Flash and Flash-Lite (sources beside `MODEL_TABLE`,
 * the one table of windows and prices this is a view of). Prices change: pass your own
 * {@link ModelPricing} where they differ.
 */
export const PRICING_PRESETS: PricingPresets = /* @__PURE__ */ (() =>
  Object.freeze(
    Object.fromEntries(
      (Object.keys(MODEL_TABLE) as KnownModel[]).flatMap((id) => {
        const row: ModelRow = MODEL_TABLE[id];
        return row.pricing === undefined ? [] : [[id, row.pricing]];
      }),
    ) as PricingPresets,
  ))();

/**
 * The prices of a model by its name, found as its window is (`modelLimitsOf`): dated ids,
 * aliases, gateway, Bedrock and Vertex names, any case and a `[1m]` suffix find the model's
 * row (`claude-haiku-5-5-20261007` finds `claude-haiku-5-5`); `undefined` for a model without
 * prices, and for a name that merely starts like a priced one.
 *
 * @example
 * const pricing = pricingForModel("claude-sonnet-5-5") ?? myPricing;
 */
export function pricingForModel(model: string): ModelPricing | undefined {
  const found = modelOf(model);
  return found === undefined ? undefined : (found.row.pricing as ModelPricing | undefined);
}
