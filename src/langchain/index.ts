/**
 * `agent-compaction/langchain`: the LangChain adapter. A `createAgent` middleware that
 * compacts before each model call (masking first, tool calls never split from their results,
 * thinking never stale, what it removes recallable, dollars counted), `BaseMessage[]`
 * converted both ways without loss, usage from `usage_metadata`, and summaries written by any
 * LangChain chat model.
 *
 * @example
 * import { createAgent } from "langchain";
 * import { compactionMiddleware } from "agent-compaction/langchain";
 *
 * const agent = createAgent({
 *   model: "anthropic:claude-sonnet-5-5", tools,
 *   middleware: [compactionMiddleware({ contextLimit: 200_000 })],
 * });
 *
 * @packageDocumentation
 */

export { LANGCHAIN_KEY } from "./blocks-in.js";
export {
  type CompactedLangChainMessages,
  type CompactLangChainMessagesOptions,
  compactLangChainMessages,
} from "./compact-langchain-messages.js";
export {
  type CompactionMiddleware,
  type CompactionMiddlewareOptions,
  compactionMiddleware,
  DEFAULT_COMPACTION_MIDDLEWARE_OPTIONS,
} from "./compaction-middleware.js";
export {
  type LangChainConversationRequest,
  LangChainLlmClient,
  type LangChainLlmClientOptions,
} from "./llm-client.js";
export { type FromLangChainMessagesOptions, fromLangChainMessages } from "./messages-in.js";
export { toLangChainMessages } from "./messages-out.js";
export { type RecallSource, type RecallToolOptions, recallTool } from "./recall-tool.js";
export { DEFAULT_THREAD_ID } from "./thread-id.js";
export { type LangChainUsageLike, usageFromLangChain } from "./usage.js";
