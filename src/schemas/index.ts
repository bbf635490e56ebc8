/**
 * `agent-compaction/schemas`: the zod schemas of the message types and of `Usage`, each pinned
 * to its TypeScript type, for apps that validate data of their own before handing it over.
 *
 * @packageDocumentation
 */
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
} from "../core/schemas.js";
export { UsageSchema } from "../session/context-meter.js";
