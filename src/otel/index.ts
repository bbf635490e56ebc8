export {
  COMPACTION_ATTRIBUTES,
  COMPACTION_SPAN_NAME,
  GEN_AI_ATTRIBUTES,
  INSTRUMENTATION_SCOPE,
} from "./attributes.js";
export { holdsCompaction, markCompactedConversation } from "./compacted-context.js";
export {
  type TraceCompactionsOptions,
  type TracedSession,
  traceCompactions,
} from "./trace-compactions.js";
export { type TraceLlmClientOptions, traceLlmClient } from "./trace-llm-client.js";
