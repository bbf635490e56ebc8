export {
  type CompactorType,
  createCompactor,
  DEFAULT_COMPACTOR_TYPE,
} from "./compactors/create-compactor.js";
export {
  DEFAULT_HYBRID_COMPACTOR_CONFIG,
  type HybridCompactionResult,
  HybridCompactor,
  type HybridCompactorConfig,
  HybridCompactorConfigSchema,
} from "./compactors/hybrid-compactor.js";
export {
  DEFAULT_LLM_COMPACTOR_CONFIG,
  LLMCompactor,
  type LLMCompactorConfig,
  LLMCompactorConfigSchema,
  type SummariseOptions,
  type SummaryOverflow,
  type Timers,
} from "./compactors/llm-compactor.js";
export {
  TRIM_NOTICE,
  type TrimOptions,
  type TrimOutput,
  trimOldest,
} from "./compactors/overflow-trim.js";
export {
  DEFAULT_SUMMARY_PROMPT,
  EARLIER_USER_MESSAGE_PREFIX,
  SUMMARY_PREFIX,
} from "./compactors/prompt.js";
export {
  CLEARED_INPUT_KEY,
  type CompactionConfig,
  CompactionConfigSchema,
  clearedToolInput,
  DEFAULT_COMPACTION_CONFIG,
  isClearedToolInput,
  REDACTION_NOTICE,
  ThresholdCompactor,
  type ToolCompaction,
} from "./compactors/threshold-compactor.js";
export {
  type AsyncCompactor,
  type CompactAsyncOptions,
  type CompactionContext,
  type CompactionOutput,
  type CompactionResult,
  type Compactor,
  emptyCompactionResult,
  isAsyncCompactor,
} from "./core/compactor.js";
export {
  CompactionError,
  type CompactionErrorCode,
  ValidationError,
  type ValidationIssue,
} from "./core/errors.js";
export type { LlmClient, LlmRequest } from "./core/llm-client.js";
export type {
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  ImageSource,
  JsonObject,
  JsonValue,
  Message,
  MessageBase,
  OpaqueBlock,
  ProviderExtra,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
  TurnId,
  UserMessage,
} from "./core/message.js";
export {
  type Clock,
  type CreateMessageOptions,
  createMessage,
  newId,
  systemClock,
} from "./core/message-factory.js";
export {
  AssistantMessageSchema,
  ContentBlockSchema,
  ImageBlockSchema,
  ImageSourceSchema,
  JsonObjectSchema,
  JsonValueSchema,
  MessageSchema,
  MessagesSchema,
  OpaqueBlockSchema,
  RedactedThinkingBlockSchema,
  SerializedMessageSchema,
  TextBlockSchema,
  ThinkingBlockSchema,
  ToolResultBlockSchema,
  ToolResultContentBlockSchema,
  ToolUseBlockSchema,
  TurnIdSchema,
  UserMessageSchema,
} from "./core/schemas.js";
export {
  DEFAULT_TOKEN_ESTIMATE_OPTIONS,
  estimateBlockTokens,
  estimateMessageTokens,
  estimateTokens,
  estimatingTokenCounter,
  type TokenCounter,
  type TokenEstimateOptions,
} from "./core/tokens.js";
export { extractTurnIds, isSummaryTurn, SUMMARY_TURN_ID, sameTurn, turnKey } from "./core/turn.js";
export {
  type ConversationProblem,
  type ConversationProblemCode,
  MAX_MESSAGES_PER_REQUEST,
  validateConversation,
} from "./core/validate-conversation.js";
export {
  AgentSession,
  type ForceCompactOptions,
  type ForceCompactResult,
  type MaybeCompactReport,
} from "./session/agent-session.js";
export { type ContextMeterState, type Usage, UsageSchema } from "./session/context-meter.js";
export type {
  CompactionEndEvent,
  CompactionEvent,
  CompactionEventListener,
  CompactionFailedEvent,
  CompactionSkippedEvent,
  CompactionStage,
  CompactionStartEvent,
  CompactionTrigger,
  ContextTrimmedEvent,
  Logger,
} from "./session/events.js";
export type {
  AfterCompactHook,
  BeforeCompactContext,
  BeforeCompactDecision,
  BeforeCompactHook,
  CompactionBoundary,
} from "./session/hooks.js";
export type { AgentSessionOptions } from "./session/options.js";
export type {
  SerializedMessage,
  SessionSnapshot,
  SessionSnapshotDeps,
} from "./session/snapshot.js";
