import * as z from "zod";

/** Token usage reported by the model for one request. */
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

const tokenCount = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more");

/** A token count as a provider's usage reports it: a whole number ≥ 0, `null` or absent. */
export const PROVIDER_TOKEN_COUNT_SCHEMA = z
  .number({ error: "must be a number or null" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more")
  .nullish();

/** Schema of {@link Usage}. */
export const UsageSchema = z.strictObject({
  inputTokens: tokenCount,
  cacheCreationInputTokens: tokenCount.exactOptional(),
  cacheReadInputTokens: tokenCount.exactOptional(),
  outputTokens: tokenCount.exactOptional(),
});
