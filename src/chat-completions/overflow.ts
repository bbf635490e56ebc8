import {
  CONTEXT_OVERFLOW_PHRASES,
  errorStatus,
  errorTexts,
  mentionsAny,
} from "../core/context-overflow.js";

/**
 * How OpenAI-compatible hosts word a request too long for the window, in lower case, besides
 * OpenAI's own (`context_length_exceeded`, "maximum context length", which vLLM, DeepSeek,
 * OpenRouter and Mistral share): llama.cpp's server (and Ollama on it), xAI, Fireworks, Groq
 * and Cerebras (whose code is OpenAI's), vLLM's prompt-length check.
 */
export const CHAT_COMPLETIONS_OVERFLOW_PHRASES: readonly string[] = Object.freeze([
  ...CONTEXT_OVERFLOW_PHRASES.openai,
  "exceeds the available context size",
  "exceed_context_size_error",
  "maximum prompt length",
  "prompt is too long",
  "reduce the length of the messages",
  "longer than the maximum model length",
]);

/**
 * Whether an error is a Chat Completions host's refusal of a request for its length: the
 * `openai` SDK's 400 (or an error without a status) whose code or message says so in OpenAI's
 * words (`context_length_exceeded`, "This model's maximum context length is …", shared by vLLM,
 * DeepSeek and OpenRouter) or another host's (see {@link CHAT_COMPLETIONS_OVERFLOW_PHRASES}).
 * Pass it to `withOverflowRecovery` as `isOverflow`.
 *
 * @example
 * await withOverflowRecovery(session, send, { isOverflow: isChatCompletionsContextOverflow });
 */
export function isChatCompletionsContextOverflow(error: unknown): boolean {
  const status = errorStatus(error);
  if (status !== undefined && status !== 400) return false;
  return mentionsAny(errorTexts(error), CHAT_COMPLETIONS_OVERFLOW_PHRASES);
}
