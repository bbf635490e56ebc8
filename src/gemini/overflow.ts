import {
  CONTEXT_OVERFLOW_PHRASES,
  errorStatus,
  errorTexts,
  mentionsAny,
} from "../core/context-overflow.js";

/**
 * Whether an error is the Gemini API's refusal of a request for its length: the
 * `@google/genai` SDK's `ApiError` with status 400 (`INVALID_ARGUMENT`) saying "The input token
 * count (…) exceeds the maximum number of tokens allowed (…)". Pass it to `withOverflowRecovery`
 * as `isOverflow`.
 *
 * @example
 * await withOverflowRecovery(session, send, { isOverflow: isGeminiContextOverflow });
 */
export function isGeminiContextOverflow(error: unknown): boolean {
  const status = errorStatus(error);
  if (status !== undefined && status !== 400) return false;
  return mentionsAny(errorTexts(error), CONTEXT_OVERFLOW_PHRASES.gemini);
}
