export {
  ConversationBuilder,
  type ConversationBuilderOptions,
  type ToolCallSpec,
  textBlock,
  toolResultBlock,
  toolUseBlock,
} from "./builders.js";
export { MockLlmClient, type MockLlmClientOptions, type MockReply } from "./mock-llm-client.js";
