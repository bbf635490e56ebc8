/**
 * `agent-compaction/ai-sdk`: the Vercel AI SDK adapter. Compact every call of a wrapped model
 * (`compactionMiddleware`), the steps of a `generateText`/`streamText` loop (`prepareStep`) or a
 * whole conversation on a stateless server, each with the session's defaults and landing;
 * recall what was removed (`recallTool`); convert `ModelMessage[]` both ways without loss; take
 * usage from step results; summarize with any `LanguageModel`.
 *
 * @example
 * import { generateText, wrapLanguageModel } from "ai";
 * import { compactionMiddleware } from "agent-compaction/ai-sdk";
 *
 * const model = wrapLanguageModel({ model: claude, middleware: compactionMiddleware() });
 * const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(50) });
 *
 * @packageDocumentation
 */

export type { StatelessCompactionOptions } from "../session/stateless-options.js";
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
  type CompactionPrepareStep,
  type CompactionPrepareStepOptions,
  compactionPrepareStep,
  type LoopResult,
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
