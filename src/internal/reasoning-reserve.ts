/**
 * Output tokens added to a summary's budget for an OpenAI model's reasoning, which
 * `max_output_tokens` and `max_completion_tokens` count with the visible text: a reasoning model
 * at its default effort can spend a summary's whole budget thinking and stop unfinished (an
 * `llm_error`). None when the request turns reasoning off (`effort: "none"`), else as much
 * again as the summary may take, as the Gemini client reserves for thinking. A cap, not a cost:
 * only the tokens the model writes are billed.
 */
export function reasoningReserve(effort: unknown, summaryTokens: number): number {
  return effort === "none" ? 0 : summaryTokens;
}
