/**
 * `agent-compaction/gemini`: the Google Gemini adapter (`@google/genai` 2). Convert `Content[]`
 * both ways without loss (thoughts and every `thoughtSignature` verbatim and in place, function
 * calls and responses with their ids, inline and file data), take a `generateContent` response
 * and its usage (`cachedContentTokenCount` and `thoughtsTokenCount` included), summarize with any
 * Gemini model, reading the agent's own prefix from the implicit cache.
 *
 * @example
 * import { GoogleGenAI } from "@google/genai";
 * import { AgentSession } from "agent-compaction";
 * import { appendGeminiResponse, toGeminiContents } from "agent-compaction/gemini";
 *
 * const ai = new GoogleGenAI({});
 * const session = new AgentSession({ contextLimit: 1_048_576 });
 * session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const response = await ai.models.generateContent({
 *   model: "gemini-3-flash-preview", contents: toGeminiContents(session.messages),
 * });
 * appendGeminiResponse(session, response);
 *
 * @packageDocumentation
 */

export { GEMINI_KEY } from "../core/gemini-contents.js";
export { compactGeminiContents } from "./compact-contents.js";
export { type FromGeminiContentsOptions, fromGeminiContents } from "./contents-in.js";
export { toGeminiContents } from "./contents-out.js";
export {
  DEFAULT_GEMINI_LLM_CLIENT_OPTIONS,
  GeminiLlmClient,
  type GeminiLlmClientOptions,
  type GeminiModelsClient,
  type GeminiRequestDescription,
  geminiResponseText,
} from "./llm-client.js";
export { isGeminiContextOverflow } from "./overflow.js";
export {
  type AppendedGeminiResponse,
  type AsyncGeminiResponseTarget,
  appendGeminiResponse,
  type GeminiResponseLike,
  type GeminiResponseTarget,
} from "./response.js";
export { answerCompact, answerRecall, COMPACT_FUNCTION, RECALL_FUNCTION } from "./tools.js";
export { type GeminiUsageLike, usageFromGemini } from "./usage.js";
