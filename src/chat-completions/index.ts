/**
 * `agent-compaction/chat-completions`: the OpenAI Chat Completions adapter
 * (`client.chat.completions.create`), for OpenAI and every host that speaks its format: vLLM,
 * Ollama, Groq, DeepSeek, OpenRouter. Convert `messages` both ways without loss (`tool_calls`
 * and `tool` messages paired by `tool_call_id`, parts, refusals, the host's reasoning fields),
 * take a completion and its usage (`cached_tokens` included), summarize with any model behind
 * the format, and detect a host's refusal for length.
 *
 * @example
 * import OpenAI from "openai";
 * import { AgentSession } from "agent-compaction";
 * import { appendChatCompletion, toChatMessages } from "agent-compaction/chat-completions";
 *
 * const client = new OpenAI(); // or new OpenAI({ baseURL: "http://localhost:8000/v1" }) for vLLM
 * const session = new AgentSession({ contextLimit: 128_000 });
 * session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const completion = await client.chat.completions.create({
 *   model: "gpt-5.6-luna",
 *   messages: [{ role: "system", content: "You are a coding agent." }, ...toChatMessages(session.messages)],
 * });
 * appendChatCompletion(session, completion);
 *
 * @packageDocumentation
 */

export {
  type AppendedChatCompletion,
  appendChatCompletion,
  type ChatCompletionLike,
  type ChatCompletionTarget,
} from "./chat-completion.js";
export { CHAT_COMPLETIONS_KEY, CHAT_REASONING_BLOCK_TYPE } from "./chat-fields.js";
export { type FromChatMessagesOptions, fromChatMessages } from "./chat-messages-in.js";
export {
  type ReasoningPolicy,
  type ToChatMessagesOptions,
  toChatMessages,
} from "./chat-messages-out.js";
export { compactChatMessages } from "./compact-messages.js";
export {
  type ChatCompletionsClient,
  type ChatCompletionsExtraParams,
  ChatCompletionsLlmClient,
  type ChatCompletionsLlmClientOptions,
  type ChatCompletionsRequestOptions,
  completionText,
  DEFAULT_CHAT_COMPLETIONS_LLM_CLIENT_OPTIONS,
} from "./llm-client.js";
export { isChatCompletionsContextOverflow } from "./overflow.js";
export {
  type ChatCompletionsRequestBody,
  type ChatCompletionsRequestDescription,
  chatCompletionsRequest,
} from "./request.js";
export {
  answerCompactToolCall,
  answerRecallToolCall,
  type ChatToolCall,
  COMPACT_CHAT_TOOL,
  RECALL_CHAT_TOOL,
} from "./tools.js";
export { type ChatCompletionUsageLike, usageFromChatCompletion } from "./usage.js";
