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
export {
  AnthropicCompactor,
  type AnthropicCompactorOptions,
  COMPACTION_BETA,
  DEFAULT_ANTHROPIC_COMPACTOR_OPTIONS,
} from "./anthropic-compactor.js";
export { compactAnthropicMessages } from "./compact-messages.js";
export { answerCompact, COMPACT_TOOL } from "./compact-tool.js";
export {
  type AnthropicContextManagementOptions,
  anthropicContextManagement,
  CONTEXT_MANAGEMENT_BETA,
} from "./context-management.js";
export {
  AnthropicLlmClient,
  type AnthropicLlmClientOptions,
  DEFAULT_ANTHROPIC_LLM_CLIENT_OPTIONS,
} from "./llm-client.js";
export { isAnthropicContextOverflow } from "./overflow.js";
export { answerRecall, RECALL_TOOL } from "./recall-tool.js";
export {
  type AnthropicRequestDescription,
  anthropicRequest,
  toAnthropicMessages,
} from "./request.js";
export { type AppendedResponse, appendAnthropicResponse } from "./response.js";
export { AnthropicTokenCounter, type AnthropicTokenCounterOptions } from "./token-counter.js";
export { type FromAnthropicOptions, fromAnthropicMessages } from "./turns.js";
export { usageFromAnthropic } from "./usage.js";
