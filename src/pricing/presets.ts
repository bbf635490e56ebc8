import type { ModelPricing } from "./model-pricing.js";

/*
 * List prices in USD per million tokens, standard tier, as published on 2026-12-01. Sources:
 * - Anthropic: platform.claude.com/docs/en/about-claude/pricing and each model's overview page
 *   (platform.claude.com/docs/en/models/fable-5-1/overview: $10 / $50; .../sonnet-5-5/overview:
 *   $2 / $10). Cache reads: Fable 5.1 $0.25 (0.025x, "a quarter of what they did",
 *   BerriAI/litellm discussion #39163); Opus 5.5 $0.20 and Sonnet 5.5 $0.10 (0.05x since
 *   2026-10-07; TheKrush/PromptFuel v1.0.21 and v1.0.23, kurofune/claudit v1.9.2); Haiku 5.5
 *   $0.10 / $0.50 with $0.01 reads up to a 100,000-token prompt and $0.50 / $2.50 above it, on
 *   every token of that request (kurofune/claudit v1.9.2). Writes 1.25x (5 min) and 2x (1 h).
 * - OpenAI: developers.openai.com/api/docs/pricing. GPT-6.2 Astra $8 / $40 with cached input
 *   $0.40 (BerriAI/litellm discussion #52347: 60% below GPT-6 Astra's $1); GPT-6.1 Sol $2 / $10
 *   with $0.10 reads (docs.apiyi.com news "GPT-6.1 Sol Is Live"); GPT-6 Luna $0.10 / $0.50 with
 *   $0.01 reads and $0.125 writes (merefield/codexometer v0.18.4). Writes 1.25x on GPT-5.6 and
 *   later (OpenAI's prompt-caching guide, quoted in mindroom-ai/mindroom PR #2134). Above 272,000
 *   input tokens input and cache rates double and output is 1.5x (BerriAI/litellm discussion
 *   #42523). OpenAI has no 1-hour write price: `cacheWrite1hMultiplier` stays at its default.
 */

/**
 * Price tables of current models, by model id: Claude Fable 5.1, Opus 5.5, Sonnet 5.5 and
 * Haiku 5.5; OpenAI GPT-6.2 Astra, GPT-6.1 Sol and GPT-6 Luna. Prices change: pass your own
 * {@link ModelPricing} where they differ.
 */
export const PRICING_PRESETS = Object.freeze({
  "claude-fable-5-1": Object.freeze({
    inputPerMTok: 10,
    outputPerMTok: 50,
    cacheWrite5mMultiplier: 1.25,
    cacheWrite1hMultiplier: 2,
    cacheReadMultiplier: 0.025,
  }),
  "claude-opus-5-5": Object.freeze({
    inputPerMTok: 4,
    outputPerMTok: 20,
    cacheWrite5mMultiplier: 1.25,
    cacheWrite1hMultiplier: 2,
    cacheReadMultiplier: 0.05,
  }),
  "claude-sonnet-5-5": Object.freeze({
    inputPerMTok: 2,
    outputPerMTok: 10,
    cacheWrite5mMultiplier: 1.25,
    cacheWrite1hMultiplier: 2,
    cacheReadMultiplier: 0.05,
  }),
  "claude-haiku-5-5": Object.freeze({
    inputPerMTok: 0.1,
    outputPerMTok: 0.5,
    cacheWrite5mMultiplier: 1.25,
    cacheWrite1hMultiplier: 2,
    cacheReadMultiplier: 0.1,
    longContext: Object.freeze({ aboveTokens: 100_000, inputPerMTok: 0.5, outputPerMTok: 2.5 }),
  }),
  "gpt-6.2-astra": Object.freeze({
    inputPerMTok: 8,
    outputPerMTok: 40,
    cacheWrite5mMultiplier: 1.25,
    cacheReadMultiplier: 0.05,
    longContext: Object.freeze({ aboveTokens: 272_000, inputPerMTok: 16, outputPerMTok: 60 }),
  }),
  "gpt-6.1-sol": Object.freeze({
    inputPerMTok: 2,
    outputPerMTok: 10,
    cacheWrite5mMultiplier: 1.25,
    cacheReadMultiplier: 0.05,
    longContext: Object.freeze({ aboveTokens: 272_000, inputPerMTok: 4, outputPerMTok: 15 }),
  }),
  "gpt-6-luna": Object.freeze({
    inputPerMTok: 0.1,
    outputPerMTok: 0.5,
    cacheWrite5mMultiplier: 1.25,
    cacheReadMultiplier: 0.1,
    longContext: Object.freeze({ aboveTokens: 272_000, inputPerMTok: 0.2, outputPerMTok: 0.75 }),
  }),
} satisfies Record<string, ModelPricing>);

/** A model id with a preset in {@link PRICING_PRESETS}. */
export type PricedModel = keyof typeof PRICING_PRESETS;

/**
 * The preset of a model id, dated ids included (`claude-haiku-5-5-20261007` finds
 * `claude-haiku-5-5`); `undefined` for a model without one.
 *
 * @example
 * const pricing = pricingForModel("claude-sonnet-5-5") ?? myPricing;
 */
export function pricingForModel(model: string): ModelPricing | undefined {
  let best: string | undefined;
  for (const id of Object.keys(PRICING_PRESETS)) {
    const matches = model === id || model.startsWith(`${id}-`) || model.startsWith(`${id}[`);
    if (matches && (best === undefined || id.length > best.length)) best = id;
  }
  return best === undefined ? undefined : PRICING_PRESETS[best as PricedModel];
}
