import * as z from "zod";
import { parseOrThrow } from "../core/errors.js";

/**
 * The dearer rates of a long prompt: when a request's prompt (uncached input, cache writes and
 * cache reads together) is above `aboveTokens`, every token of that request, output included,
 * is billed at these rates; the cache multipliers apply to this `inputPerMTok`.
 */
export interface LongContextPricing {
  /** The prompt size, in tokens, above which these rates apply (strictly above). */
  aboveTokens: number;
  /** Dollars per million uncached input tokens of a long request. */
  inputPerMTok: number;
  /** Dollars per million output tokens of a long request. */
  outputPerMTok: number;
}

/**
 * What a model costs, in US dollars per million tokens (MTok). Cache writes and reads are
 * priced as multipliers of `inputPerMTok`, as the providers publish them.
 */
export interface ModelPricing {
  /** Dollars per million uncached input tokens. */
  inputPerMTok: number;
  /** Dollars per million output tokens (thinking included). */
  outputPerMTok: number;
  /**
   * Multiplier of `inputPerMTok` for a cache write kept 5 minutes (Anthropic's default TTL, and
   * OpenAI's writes on GPT-5.6 and later). @default 1.25
   */
  cacheWrite5mMultiplier?: number;
  /** Multiplier of `inputPerMTok` for a cache write kept 1 hour. @default 2 */
  cacheWrite1hMultiplier?: number;
  /** Multiplier of `inputPerMTok` for a prefix read from the cache (0.1 = a tenth). */
  cacheReadMultiplier: number;
  /** Dearer rates above a prompt size (Haiku 5.5 above 100k, OpenAI above 272k). @default none */
  longContext?: LongContextPricing;
}

/** A checked {@link ModelPricing} with its defaults filled in, frozen. */
export type ResolvedModelPricing = Readonly<
  ModelPricing & Required<Pick<ModelPricing, "cacheWrite5mMultiplier" | "cacheWrite1hMultiplier">>
>;

/** The defaults of the optional {@link ModelPricing} fields. */
export const DEFAULT_MODEL_PRICING = Object.freeze({
  cacheWrite5mMultiplier: 1.25,
  cacheWrite1hMultiplier: 2,
});

const dollars = z
  .number({ error: "must be a number" })
  .refine((value) => Number.isFinite(value) && value >= 0, "must be a finite number ≥ 0");
const multiplier = z
  .number({ error: "must be a number" })
  .refine((value) => Number.isFinite(value) && value >= 0, "must be a finite multiplier ≥ 0");

/** Schema of {@link ModelPricing}: every price finite and ≥ 0, no unknown fields. */
export const ModelPricingSchema: z.ZodType<ModelPricing> = z.strictObject(
  {
    inputPerMTok: dollars,
    outputPerMTok: dollars,
    cacheWrite5mMultiplier: multiplier.exactOptional(),
    cacheWrite1hMultiplier: multiplier.exactOptional(),
    cacheReadMultiplier: multiplier,
    longContext: z
      .strictObject(
        {
          aboveTokens: z
            .number({ error: "must be a number" })
            .int("must be a whole number")
            .positive("must be greater than 0"),
          inputPerMTok: dollars,
          outputPerMTok: dollars,
        },
        {
          error: (issue) =>
            issue.code === "invalid_type"
              ? "must be { aboveTokens, inputPerMTok, outputPerMTok }"
              : undefined,
        },
      )
      .exactOptional(),
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
