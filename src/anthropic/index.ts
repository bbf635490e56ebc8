/**
 * `agent-compaction/anthropic`: the `@anthropic-ai/sdk` adapter. Convert conversations both
 * ways without loss, take whole responses (content and usage) into a session, summarize with
 * Claude, and count tokens with the API.
 *
 * @example
 * import Anthropic from "@anthropic-ai/sdk";
 * import { AgentSession, LLMCompactor } from "agent-compaction";
 * import {
 *   AnthropicLlmClient, appendAnthropicResponse, toAnthropicMessages,
 * } from "agent-compaction/anthropic";
 *
 * const client = new Anthropic();
 * const session = new AgentSession({
 *   contextLimit: 200_000,
 *   llmCompactor: new LLMCompactor(new AnthropicLlmClient({ client, model: "claude-haiku-4-5" })),
 * });
 * session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const response = await client.messages.create({
 *   model: "claude-sonnet-5-5", max_tokens: 4096, messages: toAnthropicMessages(session.messages),
 * });
 * appendAnthropicResponse(session, response);
 *
 * @packageDocumentation
 */

export {
  isCompactionBlock,
  startsWithCompaction,
} from "../core/conversation-structure.js";
export { COMPACTION_BLOCK_TYPE, type CompactionBlock } from "../core/message.js";
export type {
  CacheDiagnosisEvent,
  ContextEditsAppliedEvent,
  InputTransformationsEvent,
} from "../session/events.js";
export {
  type AnthropicCompactionClient,
  type AnthropicCompactionParams,
  AnthropicCompactor,
  type AnthropicCompactorOptions,
  COMPACTION_BETA,
  DEFAULT_ANTHROPIC_COMPACTOR_OPTIONS,
  MAX_COMPACTION_INSTRUCTIONS,
} from "./anthropic-compactor.js";
export {
  type AnthropicBlock,
  fromAnthropicContent,
  STRING_CONTENT_KEY,
  toAnthropicContent,
} from "./blocks.js";
export { answerCompact, COMPACT_TOOL } from "./compact-tool.js";
export {
  type AnthropicContextManagement,
  type AnthropicContextManagementOptions,
  anthropicContextManagement,
  type ClearThinkingEdit,
  type ClearToolUsesEdit,
  CONTEXT_MANAGEMENT_BETA,
} from "./context-management.js";
export {
  type AnthropicExtraParams,
  AnthropicLlmClient,
  type AnthropicLlmClientOptions,
  type AnthropicMessagesClient,
  type AnthropicRequestOptions,
  DEFAULT_ANTHROPIC_LLM_CLIENT_OPTIONS,
  responseText,
} from "./llm-client.js";
export { isAnthropicContextOverflow } from "./overflow.js";
export { answerRecall, RECALL_TOOL, recallText } from "./recall-tool.js";
export {
  type AnthropicRequestBuildOptions,
  type AnthropicRequestDescription,
  AnthropicRequestDescriptionSchema,
  anthropicRequest,
  toAnthropicMessages,
} from "./request.js";
export {
  type AnthropicResponseLike,
  type AppendedResponse,
  type AppliedContextEdit,
  type AsyncResponseTarget,
  appendAnthropicResponse,
  type CacheMissReason,
  type ResponseTarget,
} from "./response.js";
export {
  AnthropicTokenCounter,
  type AnthropicTokenCounterOptions,
  type TokenCountFallback,
} from "./token-counter.js";
export { type FromAnthropicOptions, fromAnthropicMessages } from "./turns.js";
export { type AnthropicUsageLike, usageFromAnthropic } from "./usage.js";
