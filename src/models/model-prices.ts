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
