import {
  CONTEXT_OVERFLOW_PHRASES,
  errorStatus,
  errorTexts,
  mentionsAny,
} from "../core/context-overflow.js";

/**
 * Whether an error is OpenAI's refusal of a request for its length: the `openai` SDK's 400 with
 * code `context_length_exceeded` (or its message, "exceeds the context window", "maximum
 * context length"), or a failed response's error object with that code. Pass it to
 * `withOverflowRecovery` as `isOverflow`.
 *
 * @example
 * await withOverflowRecovery(session, send, { isOverflow: isOpenAIContextOverflow });
 */
export function isOpenAIContextOverflow(error: unknown): boolean {
  const status = errorStatus(error);
  if (status !== undefined && status !== 400) return false;
  return mentionsAny(errorTexts(error), CONTEXT_OVERFLOW_PHRASES.openai);
}
