import { AgentSession, LLMCompactor, type LlmClient } from "../../src/index.js";

/**
 * A session configured with a window larger than the model's (`contextLimit` 40,000 for a
 * model of a few thousand): six reviewed modules of about 1,500 tokens each, then the user's
 * next question. It never sees the need to compact; its `LLMCompactor` (on `summarizer`) keeps
 * one turn and asks for a summary that fits a small window.
 */
export function overfullSession(summarizer: LlmClient): AgentSession {
  const session = new AgentSession({
    contextLimit: 40_000, // wrong: the model's window is smaller
    compactor: false,
    llmCompactor: new LLMCompactor(summarizer, {
      keepRecentTurns: 1,
      maxSummaryTokens: 300,
      maxTranscriptTokens: 2_000,
    }),
  });
  for (let index = 0; index < 6; index += 1) {
    session.addUserText(`Review module ${index}.`);
    session.addAssistant([
      { type: "text", text: `Module ${index}: ${"looks fine; ".repeat(500)}` },
    ]);
  }
  session.addUserText("Which module had issues?");
  return session;
}
