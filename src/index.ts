/**
 * `agent-compaction`: keeps long-running LLM agent conversations inside the model's context
 * window. The session, the compactors, the errors, and the message types. Platform-neutral: it
 * imports no Node built-in, so it bundles for browsers and edge runtimes; the stores and the
 * archive sit in `agent-compaction/store` (and `/file-store`, `/redis`, `/postgres`), `Clock` and
 * `Timers` in `/testing`. Each event is a member of `CompactionEvent`, named by its `type`:
 * `Extract<CompactionEvent, { type: "compaction_end" }>`.
 *
 * @packageDocumentation
 */
export { type CompactorType, createCompactor } from "./compactors/create-compactor.js";
export {
  DEFAULT_HYBRID_COMPACTOR_OPTIONS,
  type HybridCompactionResult,
  HybridCompactor,
  type HybridCompactorOptions,
} from "./compactors/hybrid-compactor.js";
export {
  DEFAULT_LLM_COMPACTOR_OPTIONS,
  LLMCompactor,
  type LLMCompactorConfig,
  type LLMCompactorOptions,
} from "./compactors/llm-compactor.js";
export { TRIM_NOTICE } from "./compactors/overflow-trim.js";
export { DEFAULT_SUMMARY_PROMPT, SUMMARY_PREFIX } from "./compactors/prompt.js";
export {
  type CompactionConfig,
  DEFAULT_THRESHOLD_COMPACTOR_OPTIONS,
  REDACTION_NOTICE,
  ThresholdCompactor,
  type ThresholdCompactorOptions,
  type ToolCompaction,
} from "./compactors/threshold-compactor.js";
export type {
  AsyncCompactor,
  CompactAsyncOptions,
  CompactionContext,
  CompactionOutput,
  CompactionResult,
  Compactor,
} from "./core/compactor.js";
export { isSystemMessage, isSystemMessageBlock } from "./core/conversation-structure.js";
export {
  CompactionError,
  type CompactionErrorCode,
  ValidationError,
  type ValidationIssue,
} from "./core/errors.js";
export { INTERRUPTED_NOTICE } from "./core/interrupted-calls.js";
export type { LlmClient, LlmRequest } from "./core/llm-client.js";
export {
  type AssistantMessage,
  type ContentBlock,
  type GeneratedKind,
  type ImageBlock,
  type ImageSource,
  type JsonObject,
  type JsonValue,
  type Message,
  type OpaqueBlock,
  type ProviderExtra,
  type RedactedThinkingBlock,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type SystemMessageBlock,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolResultContentBlock,
  type ToolUseBlock,
  type TurnId,
  type UserMessage,
} from "./core/message.js";
export { estimateTokens } from "./core/message-memo.js";
export { MessageSchema } from "./core/schemas.js";
export type { TokenCounter } from "./core/tokens.js";
export { extractTurnIds, SUMMARY_TURN_ID } from "./core/turn.js";
export type { CompactionUsage, Usage } from "./core/usage.js";
export {
  type ConversationProblem,
  type ConversationProvider,
  type ValidateConversationOptions,
  validateConversation,
} from "./core/validate-conversation.js";
export { AgentSession } from "./session/agent-session.js";
export type { CompactingSession } from "./session/compacting-session.js";
export type {
  ForceCompactOptions,
  ForceCompactResult,
  MaybeCompactOptions,
  MaybeCompactReport,
} from "./session/compaction-report.js";
export type {
  CompactionEvent,
  CompactionEventListener,
  Logger,
} from "./session/events.js";
export type {
  AfterCompactHook,
  BeforeCompactHook,
  CompactionBoundary,
} from "./session/hooks.js";
export {
  type AgentSessionOptions,
  DEFAULT_SESSION_COMPACTOR_OPTIONS,
} from "./session/options.js";
export {
  type OverflowRecoveryOptions,
  withOverflowRecovery,
} from "./session/overflow-recovery.js";
export type {
  SerializedMessage,
  SessionRestoreOptions,
  SessionSnapshot,
} from "./session/snapshot.js";
export type { ToolResultInput } from "./session/tool-results.js";
