/**
 * The attribute names the spans carry. The `gen_ai.*` names follow the OpenTelemetry GenAI
 * semantic conventions (open-telemetry/semantic-conventions-genai, read 2026-12: the cache-write
 * count was renamed from `cache_creation` to `cache_write` in its #440); the rest are this
 * library's own, under `agent_compaction.*`.
 */

/** The GenAI semantic-convention attributes the summarizer's span and the app's span carry. */
export const GEN_AI_ATTRIBUTES = Object.freeze({
  OPERATION_NAME: "gen_ai.operation.name",
  PROVIDER_NAME: "gen_ai.provider.name",
  REQUEST_MODEL: "gen_ai.request.model",
  REQUEST_MAX_TOKENS: "gen_ai.request.max_tokens",
  CONVERSATION_ID: "gen_ai.conversation.id",
  CONVERSATION_COMPACTED: "gen_ai.conversation.compacted",
  /** All input tokens, cached ones included, as the convention asks. */
  USAGE_INPUT_TOKENS: "gen_ai.usage.input_tokens",
  USAGE_OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  USAGE_CACHE_READ_INPUT_TOKENS: "gen_ai.usage.cache_read.input_tokens",
  USAGE_CACHE_WRITE_INPUT_TOKENS: "gen_ai.usage.cache_write.input_tokens",
  ERROR_TYPE: "error.type",
} as const);

/** The attributes of a compaction span (`agent_compaction.compact`). */
export const COMPACTION_ATTRIBUTES = Object.freeze({
  /** `threshold`, `llm`, `hybrid`, `anthropic`, `custom`, or `trim` for an overflow trim. */
  STRATEGY: "agent_compaction.strategy",
  /** `auto` (`maybeCompact`) or `manual` (`forceCompact`). */
  TRIGGER: "agent_compaction.trigger",
  /** `compacted`, `skipped`, `failed` or `trimmed`. */
  OUTCOME: "agent_compaction.outcome",
  /** For `skipped`: `circuit_open`, `vetoed`, `nothing_to_compact` or `conflict` (a stored session's result discarded). */
  SKIP_REASON: "agent_compaction.skip_reason",
  /** For `failed`: the `CompactionError` code. */
  ERROR_CODE: "agent_compaction.error_code",
  CONTEXT_LIMIT: "agent_compaction.context_limit",
  CONTEXT_USED_BEFORE: "agent_compaction.context_used.before",
  CONTEXT_USED_AFTER: "agent_compaction.context_used.after",
  /** Local token estimate of the messages. */
  TOKENS_BEFORE: "agent_compaction.tokens.before",
  TOKENS_AFTER: "agent_compaction.tokens.after",
  MESSAGES_BEFORE: "agent_compaction.messages.before",
  MESSAGES_AFTER: "agent_compaction.messages.after",
  /** For `trimmed`, and a compaction that removed messages (`dropOldest`): how many. */
  MESSAGES_REMOVED: "agent_compaction.messages.removed",
  TURNS_COMPACTED: "agent_compaction.turns_compacted",
  TOOL_RESULTS_SUMMARIZED: "agent_compaction.tool_results.summarized",
  TOOL_RESULTS_REDACTED: "agent_compaction.tool_results.redacted",
  THINKING_BLOCKS_DROPPED: "agent_compaction.thinking_blocks_dropped",
  /** What the compaction's own model calls cost, in tokens (its `result.usage`). */
  COST_INPUT_TOKENS: "agent_compaction.cost.input_tokens",
  COST_OUTPUT_TOKENS: "agent_compaction.cost.output_tokens",
  COST_CACHE_READ_INPUT_TOKENS: "agent_compaction.cost.cache_read.input_tokens",
  COST_CACHE_WRITE_INPUT_TOKENS: "agent_compaction.cost.cache_write.input_tokens",
  /** The same in dollars, with `traceCompactions({ pricing })`. */
  COST_USD: "agent_compaction.cost.usd",
} as const);

/** The name of a compaction run's span. */
export const COMPACTION_SPAN_NAME = "agent_compaction.compact";

/** The instrumentation scope the spans are created under. */
export const INSTRUMENTATION_SCOPE = "agent-compaction";
