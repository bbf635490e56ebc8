export type { Timers } from "../core/abort.js";
export type { Clock } from "../core/message-factory.js";
export { type ApiErrorBody, StandInApiError } from "./anthropic-rules/api-error.js";
export type {
  StandInCompactionReply,
  StandInMessageReply,
  StandInToolCall,
} from "./anthropic-rules/responses.js";
export {
  AnthropicStandIn,
  type AnthropicStandInOptions,
  DEFAULT_ANTHROPIC_STAND_IN_OPTIONS,
  type StandInEndpoint,
  type StandInErrorReply,
  type StandInReply,
  type StandInRequest,
  type StandInRequestOptions,
} from "./anthropic-stand-in.js";
export {
  ConversationBuilder,
  type ConversationBuilderOptions,
  type ToolCallSpec,
  textBlock,
  toolResultBlock,
  toolUseBlock,
} from "./builders.js";
export { MockLlmClient, type MockLlmClientOptions, type MockReply } from "./mock-llm-client.js";
