import { APICallError, RetryError } from "ai";
import { isContextOverflowError } from "../core/context-overflow.js";

/**
 * Whether an error from `generateText`/`streamText` is the provider's refusal of a request for
 * its length: an `APICallError` (or a `RetryError` whose last error is one) with status 400
 * whose message or response body says so as Anthropic (`prompt is too long`) or OpenAI
 * (`context_length_exceeded`) do. Pass it to `withOverflowRecovery` as `isOverflow`.
 *
 * @example
 * await withOverflowRecovery(session, send, { isOverflow: isAiSdkContextOverflow });
 */
export function isAiSdkContextOverflow(error: unknown): boolean {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  return APICallError.isInstance(last) && isContextOverflowError(last);
}
