import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import { finiteNumber, POSITIVE_INT_SCHEMA } from "../core/option-schemas.js";
import type { ModelPricing } from "./model-prices.js";

export type { LongContextPricing, ModelPricing } from "./model-prices.js";

/** A checked {@link ModelPricing} with its defaults filled in, frozen. */
export type ResolvedModelPricing = Readonly<
  ModelPricing & Required<Pick<ModelPricing, "cacheWrite5mMultiplier" | "cacheWrite1hMultiplier">>
>;

/** The defaults of the optional {@link ModelPricing} fields. */
export const DEFAULT_MODEL_PRICING = Object.freeze({
  cacheWrite5mMultiplier: 1.25,
  cacheWrite1hMultiplier: 2,
});

const dollars = finiteNumber(0);
const multiplier = dollars;

/** Schema of {@link ModelPricing}: every price finite and ≥ 0, no unknown fields. */
export const ModelPricingSchema: z.ZodMiniType<ModelPricing> = z.strictObject(
  {
    inputPerMTok: dollars,
    outputPerMTok: dollars,
    cacheWrite5mMultiplier: z.exactOptional(multiplier),
    cacheWrite1hMultiplier: z.exactOptional(multiplier),
    cacheReadMultiplier: multiplier,
    longContext: z.exactOptional(
      z.strictObject(
        {
          aboveTokens: POSITIVE_INT_SCHEMA,
          inputPerMTok: dollars,
          outputPerMTok: dollars,
        },
        {
          error: (issue) =>
            issue.code === "invalid_type"
              ? "must be { aboveTokens, inputPerMTok, outputPerMTok }"
              : undefined,
        },
      ),
    ),
  },
  { error: (issue) => (issue.code === "invalid_type" ? "must be a pricing object" : undefined) },
);

/**
 * Checks a price table of your own and returns a frozen copy, defaults filled in.
 *
 * @example
 * const pricing = definePricing({ inputPerMTok: 3, outputPerMTok: 15, cacheReadMultiplier: 0.1 });
 * @throws {ValidationError} naming the field when a price is missing, negative or not finite.
 */
export function definePricing(pricing: ModelPricing): ResolvedModelPricing {
  const parsed = parseOrThrow(ModelPricingSchema, pricing, "ModelPricing");
  return Object.freeze({
    inputPerMTok: parsed.inputPerMTok,
    outputPerMTok: parsed.outputPerMTok,
    cacheWrite5mMultiplier:
      parsed.cacheWrite5mMultiplier ?? DEFAULT_MODEL_PRICING.cacheWrite5mMultiplier,
    cacheWrite1hMultiplier:
      parsed.cacheWrite1hMultiplier ?? DEFAULT_MODEL_PRICING.cacheWrite1hMultiplier,
    cacheReadMultiplier: parsed.cacheReadMultiplier,
    ...(parsed.longContext === undefined
      ? {}
      : { longContext: Object.freeze({ ...parsed.longContext }) }),
  });
}
