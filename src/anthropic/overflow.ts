import {
  CONTEXT_OVERFLOW_PHRASES,
  errorStatus,
  errorTexts,
  mentionsAny,
} from "../core/context-overflow.js";

/**
 * Whether an error is the Messages API's refusal of a request for its length: a 400 saying
 * `prompt is too long` (or that input and `max_tokens` exceed the context limit), from the SDK
 * or any error shaped like its `APIError` (`AnthropicStandIn`'s). Pass it to
 * `withOverflowRecovery` as `isOverflow`.
 *
 * @example
 * await withOverflowRecovery(session, send, { isOverflow: isAnthropicContextOverflow });
 */
export function isAnthropicContextOverflow(error: unknown): boolean {
  return (
    errorStatus(error) === 400 && mentionsAny(errorTexts(error), CONTEXT_OVERFLOW_PHRASES.anthropic)
  );
}
