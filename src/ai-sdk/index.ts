/**
 * `agent-compaction/ai-sdk`: the Vercel AI SDK adapter. Convert `ModelMessage[]` both ways
 * without loss, compact between the steps of `generateText`/`streamText` loops with a
 * `prepareStep`, compact whole conversations on a stateless server, take usage from step
 * results, and summarize with any `LanguageModel`.
 *
 * @example
 * import { generateText, stepCountIs } from "ai";
 * import { compactionPrepareStep } from "agent-compaction/ai-sdk";
 *
 * const result = await generateText({
 *   model, tools, messages, stopWhen: stepCountIs(50),
 *   prepareStep: compactionPrepareStep({ contextLimit: 200_000 }),
 * });
 *
 * @packageDocumentation
 */

export {
  STATELESS_SESSION_ID,
  type StatelessCompactionOptions,
} from "../session/stateless-compaction.js";
export {
  type CompactedModelMessages,
  type CompactModelMessagesOptions,
  compactModelMessages,
} from "./compact-model-messages.js";
export type { StepCompaction } from "./compact-step.js";
export {
  type CompactionMiddlewareOptions,
  compactionMiddleware,
  type MiddlewareCompaction,
} from "./compaction-middleware.js";
export {
  AiSdkLlmClient,
  type AiSdkLlmClientOptions,
  type AiSdkProviderOptions,
  DEFAULT_AI_SDK_LLM_CLIENT_OPTIONS,
} from "./llm-client.js";
export {
  type FromModelMessagesOptions,
  fromModelMessages,
  toModelMessages,
} from "./model-messages.js";
export { isAiSdkContextOverflow } from "./overflow.js";
export { AI_SDK_KEY } from "./parts-in.js";
export {
  type CompactionPrepareStepOptions,
  compactionPrepareStep,
  type PrepareStepCompaction,
  type PrepareStepInput,
  type PrepareStepOutput,
} from "./prepare-step.js";
export {
  RECALL_TOOL_NAME,
  type RecallSource,
  type RecallToolOptions,
  recallTool,
} from "./recall-tool.js";
export { type AiSdkUsageLike, usageFromAiSdk } from "./usage.js";
