/**
 * `agent-compaction/openai`: the OpenAI Responses API adapter. Convert `input` items both
 * ways without loss (reasoning items and their `encrypted_content` verbatim and in place,
 * function calls and outputs, compaction items), take usage (`cached_tokens` included),
 * compact with `/responses/compact`, and summarize with any Responses model.
 *
 * @example
 * import OpenAI from "openai";
 * import { AgentSession } from "agent-compaction";
 * import { fromResponsesInput, OpenAICompactor, toResponsesInput, usageFromOpenAI } from "agent-compaction/openai";
 *
 * const client = new OpenAI();
 * const session = new AgentSession({
 *   contextLimit: 400_000, compactor: false,
 *   llmCompactor: new OpenAICompactor({ client, model: "gpt-6.1-sol" }),
 * });
 * session.addUserText("Fix the failing test");
 * await session.maybeCompact();
 * const response = await client.responses.create({
 *   model: "gpt-6.1-sol", input: toResponsesInput(session.messages), store: false,
 *   include: ["reasoning.encrypted_content"],
 * });
 *
 * @packageDocumentation
 */

export { compactResponsesInput } from "./compact-input.js";
export { answerCompactFunctionCall, COMPACT_FUNCTION_TOOL } from "./compact-tool.js";
export { OPENAI_KEY } from "./items-in.js";
export {
  DEFAULT_OPENAI_LLM_CLIENT_OPTIONS,
  type OpenAIExtraParams,
  OpenAILlmClient,
  type OpenAILlmClientOptions,
  type OpenAIRequestOptions,
  type OpenAIResponsesClient,
  responseText,
} from "./llm-client.js";
export {
  DEFAULT_OPENAI_COMPACTOR_OPTIONS,
  type OpenAICompactionClient,
  OpenAICompactor,
  type OpenAICompactorOptions,
} from "./openai-compactor.js";
export { isOpenAIContextOverflow } from "./overflow.js";
export { answerRecallFunctionCall, RECALL_FUNCTION_TOOL } from "./recall-tool.js";
export {
  type AppendedOpenAIResponse,
  appendOpenAIResponse,
  type OpenAIResponseLike,
  type OpenAIResponseTarget,
} from "./response.js";
export {
  COMPACTION_ITEM_TYPE,
  type FromResponsesInputOptions,
  fromResponsesInput,
} from "./responses-input.js";
export { toResponsesInput } from "./responses-output.js";
export { type OpenAIUsageLike, usageFromOpenAI } from "./usage.js";
