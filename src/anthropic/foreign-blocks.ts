import { hasAdapterMark, RESPONSES_TYPE_FAMILIES } from "../core/adapter-marks.js";
import { BOOKKEEPING_KEYS, isBookkeepingKey } from "../core/bookkeeping-keys.js";
import { COMPACTION_BLOCK_TYPE, type ContentBlock, type JsonObject } from "../core/message.js";
import { systemText } from "../internal/system-text.js";

// Which opaque blocks the Messages API can read. Ours carry, besides Anthropic's own blocks
// (server tools, documents, compaction, blocks newer than the SDK), what the other adapters
// read and could not model: their reasoning, parts and items. Anthropic's go out verbatim; the
// others' are left out, as the other writers leave out Anthropic's thinking.

/** The Messages API names its block types in lowercase snake_case (`server_tool_use`). */
const API_TYPE_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Types other APIs give their blocks that the Messages API has no block of (the test holds
 * them apart from every block type of the Anthropic SDK): the OpenAI Responses API's items and
 * parts, the AI SDK's parts, LangChain's standard blocks and Chat Completions' parts.
 */
const FOREIGN_TYPES: ReadonlySet<string> = new Set([
  "reasoning",
  "message",
  "item_reference",
  "compaction_trigger",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "refusal",
  "summary_text",
  "image_url",
  "file",
  "audio",
  "video",
  "non_standard",
  "tool_call",
  "tool_call_chunk",
  "invalid_tool_call",
  "server_tool_call",
  "server_tool_call_chunk",
  "server_tool_call_result",
]);

/**
 * The adapters that read only their own API's blocks, whose marks (`openai:item` on a Responses
 * part, `chatCompletions:part` on a Chat Completions part, `gemini:content` on a Gemini part)
 * say a block is not Anthropic's. The AI SDK's and LangChain's marks say nothing of where a
 * block came from: their providers hand Anthropic's blocks through (a compaction block).
 */
const ORIGIN_ADAPTERS: ReadonlySet<string> = new Set([
  BOOKKEEPING_KEYS.openai,
  BOOKKEEPING_KEYS.chatCompletions,
  BOOKKEEPING_KEYS.gemini,
]);

/**
 * Whether an opaque block (its `block`) is one of the Messages API's: its `type` a string in
 * the API's naming (not a Gemini part, which has none, not the library's or an adapter's own
 * `key:…` type such as `chatCompletions:reasoning`, not an AI SDK `tool-call`), not a type of
 * another API ({@link FOREIGN_TYPES}: `reasoning`, `file`, `web_search_call`, `input_audio`,
 * …), no mark of an adapter that reads only its own API ({@link ORIGIN_ADAPTERS}), and not the
 * Responses API's `compaction` item (Anthropic's compaction block always has `content`).
 */
export function isAnthropicOpaque(block: JsonObject): boolean {
  const type = block["type"];
  if (typeof type !== "string" || !API_TYPE_NAME.test(type) || isBookkeepingKey(type)) return false;
  if (FOREIGN_TYPES.has(type) || RESPONSES_TYPE_FAMILIES.test(type)) return false;
  if (type === COMPACTION_BLOCK_TYPE && !Object.hasOwn(block, "content")) return false;
  return !hasAdapterMark(block, ORIGIN_ADAPTERS);
}

/**
 * Whether `toAnthropicMessages` sends a block: every modelled block does; an opaque block
 * when the Messages API can read it ({@link isAnthropicOpaque}).
 */
export function sendsToAnthropic(block: ContentBlock): boolean {
  return block.type !== "opaque" || isAnthropicOpaque(block.block);
}

/**
 * Fields other APIs' system messages carry that the Messages API's `role: "system"` message has
 * not: Chat Completions' and LangChain's `name`, LangChain's `id`, `additional_kwargs` and
 * `response_metadata`, the AI SDK's `providerOptions`.
 */
const FOREIGN_SYSTEM_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "id",
  "additional_kwargs",
  "response_metadata",
  "providerOptions",
]);

function isTextPart(part: unknown): boolean {
  return typeof part === "object" && part !== null && (part as JsonObject)["type"] === "text";
}

/**
 * A mid-conversation system message as the Messages API takes it. One in its shape (`role:
 * "system"`, no `type`, content a string or `text` blocks, or none: Anthropic's own, and most
 * others') goes out verbatim, without the library's bookkeeping and the other APIs' fields
 * ({@link FOREIGN_SYSTEM_FIELDS}); another (a Responses `developer` item, a Chat `developer`
 * message) as `{ role: "system", content }` of its text, or not at all when it has none.
 */
export function systemMessageToWire(message: JsonObject): JsonObject | undefined {
  const { content } = message;
  const ownShape =
    message["role"] === "system" &&
    !Object.hasOwn(message, "type") &&
    (content === undefined ||
      typeof content === "string" ||
      (Array.isArray(content) && content.every(isTextPart)));
  if (!ownShape) {
    const text = systemText(content);
    return text === "" ? undefined : { role: "system", content: text };
  }
  let out: JsonObject | undefined;
  for (const key in message) {
    if (!Object.hasOwn(message, key)) continue;
    if (!isBookkeepingKey(key) && !FOREIGN_SYSTEM_FIELDS.has(key)) continue;
    out ??= { ...message };
    delete out[key];
  }
  return out ?? message;
}
