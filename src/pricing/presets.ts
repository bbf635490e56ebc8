import type { LongContextPricing, ModelPricing } from "./model-pricing.js";

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
 * - Google: ai.google.dev/gemini-api/docs/pricing, as gateways quote it. Gemini 4 Argon $4 / $20
 *   with $0.20 reads from 2026-12-01 (BerriAI/litellm discussion #46238, iyulab/TokenMeter
 *   v0.13.1); Gemini 4 Neon $3 / $15 with $0.15 reads and Gemini 4 Hydrogen $1.50 / $7.50 with
 *   $0.075 reads (TokenMeter v0.17.0); Gemini 3.8 Flash $0.75 / $3.75 with $0.075 reads through
 *   2026-12-31 ($1.50 / $7.50 from 2027-01-01; pydantic/genai-prices PR #678); Gemini 3.1 Pro
 *   $2 / $12 with $0.20 reads, $4 / $18 above 200,000 prompt tokens; Gemini 3 Flash $0.50 / $3
 *   with $0.05 reads (simonw/llm-prices PR #68); Gemini 2.5 Pro $1.25 / $10 ($2.50 / $15 above
 *   200,000), 2.5 Flash $0.30 / $2.50, 2.5 Flash-Lite $0.10 / $0.40, reads a tenth of input.
 *   Thinking is billed as output. Implicit caching bills no writes (explicit caching's storage
 *   per hour is not modelled), so both write multipliers are 1.
 */

/** A Gemini price table: reads at `cacheRead` of input, no write premium (implicit caching). */
function gemini(
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadMultiplier: number,
  longContext?: LongContextPricing,
): ModelPricing {
  return Object.freeze({
    inputPerMTok,
    outputPerMTok,
    cacheWrite5mMultiplier: 1,
    cacheWrite1hMultiplier: 1,
    cacheReadMultiplier,
    ...(longContext === undefined ? {} : { longContext: Object.freeze(longContext) }),
  });
}

/**
 * Price tables of current models, by model id: Claude Fable 5.1, Opus 5.5, Sonnet 5.5 and
 * Haiku 5.5; OpenAI GPT-6.2 Astra, GPT-6.1 Sol and GPT-6 Luna; Gemini 4 Argon, Neon and
 * Hydrogen, 3.8 Flash, 3.1 Pro, 3 Flash, 2.5 Pro, Flash and Flash-Lite (a `-preview` id finds its
 * model). Prices change: pass your own {@link ModelPricing} where they differ.
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
  "gemini-4-argon": gemini(4, 20, 0.05),
  "gemini-4-neon": gemini(3, 15, 0.05),
  "gemini-4-hydrogen": gemini(1.5, 7.5, 0.05),
  "gemini-3.8-flash": gemini(0.75, 3.75, 0.1),
  "gemini-3.1-pro": gemini(2, 12, 0.1, {
    aboveTokens: 200_000,
    inputPerMTok: 4,
    outputPerMTok: 18,
  }),
  "gemini-3-flash": gemini(0.5, 3, 0.1),
  "gemini-2.5-pro": gemini(1.25, 10, 0.1, {
    aboveTokens: 200_000,
    inputPerMTok: 2.5,
    outputPerMTok: 15,
  }),
  "gemini-2.5-flash": gemini(0.3, 2.5, 0.1),
  "gemini-2.5-flash-lite": gemini(0.1, 0.4, 0.1),
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
  // The Gemini SDK names models `models/gemini-…`.
  if (model.startsWith("models/")) return pricingForModel(model.slice("models/".length));
  let best: string | undefined;
  for (const id of Object.keys(PRICING_PRESETS)) {
    const matches = model === id || model.startsWith(`${id}-`) || model.startsWith(`${id}[`);
    if (matches && (best === undefined || id.length > best.length)) best = id;
  }
  return best === undefined ? undefined : PRICING_PRESETS[best as PricedModel];
}
