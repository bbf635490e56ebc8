import { hasAdapterMark, RESPONSES_TYPE_FAMILIES } from "../core/adapter-marks.js";
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import { COMPACTION_BLOCK_TYPE, type ContentBlock, type JsonObject } from "../core/message.js";
import { PART_TYPES } from "./items-in.js";

// Which opaque blocks the Responses API can read. Ours carry, besides its own items and parts
// (reasoning, compaction, hosted tool calls, files), what the other adapters read and could not
// model: Anthropic's server tool blocks and documents, Gemini's parts, the AI SDK's parts,
// LangChain's standard blocks, Chat Completions' reasoning. The API refuses an item of a type it
// does not know, so those are left out, as the other writers leave out the Responses items.

/**
 * The Responses API's item types (the test holds them to the SDK's `ResponseInputItem`): a
 * block of one of them goes out whole, in place.
 */
const ITEM_TYPES: ReadonlySet<string> = new Set([
  "message",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "web_search_call",
  "function_call",
  "function_call_output",
  "tool_search_call",
  "tool_search_output",
  "additional_tools",
  "reasoning",
  "compaction",
  "image_generation_call",
  "code_interpreter_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "mcp_call",
  "custom_tool_call_output",
  "custom_tool_call",
  "compaction_trigger",
  "item_reference",
  "program",
  "program_output",
]);

/** LangChain's standard blocks named like a Responses call (`tool_call`, `server_tool_call`). */
const LANGCHAIN_CALL_TYPES: ReadonlySet<string> = new Set([
  "tool_call",
  "invalid_tool_call",
  "server_tool_call",
]);

/** The OpenAI adapter's mark: a message item's part, as `fromResponsesInput` read it. */
const OWN_MARK: ReadonlySet<string> = new Set([BOOKKEEPING_KEYS.openai]);

/** The marks of adapters that read only their own API's blocks: never a Responses item. */
const OTHER_API_MARKS: ReadonlySet<string> = new Set([
  BOOKKEEPING_KEYS.chatCompletions,
  BOOKKEEPING_KEYS.gemini,
]);

/**
 * Whether an opaque block (its `block`) is one of the Responses API's: marked by the OpenAI
 * adapter (`openai:item`, `openai:continues`: a message item's part); else, not marked by an
 * adapter of another API (`chatCompletions:…`, `gemini:…`), a content part
 * (`PART_TYPES`: a tool output's `input_file`) or an item of a type the SDK names
 * ({@link ITEM_TYPES}) or of the API's families (`…_call`, `…_output`, `input_…`: newer ones),
 * not LangChain's `tool_call` blocks. A `reasoning` item has its `summary` array (the AI SDK's
 * and LangChain's reasoning have none), a `compaction` item no `content` (Anthropic's has).
 */
export function isResponsesOpaque(block: JsonObject): boolean {
  if (hasAdapterMark(block, OWN_MARK)) return true;
  const type = block["type"];
  if (typeof type !== "string" || hasAdapterMark(block, OTHER_API_MARKS)) return false;
  if (PART_TYPES.has(type)) return true;
  if (type === "reasoning") return Array.isArray(block["summary"]);
  if (type === COMPACTION_BLOCK_TYPE) return !Object.hasOwn(block, "content");
  if (ITEM_TYPES.has(type)) return true;
  return RESPONSES_TYPE_FAMILIES.test(type) && !LANGCHAIN_CALL_TYPES.has(type);
}

/**
 * Whether `toResponsesInput` sends a block: every modelled block but Anthropic's thinking
 * (which it leaves out on its own); an opaque block when the API can read it
 * ({@link isResponsesOpaque}).
 */
export function sendsToResponses(block: ContentBlock): boolean {
  return block.type !== "opaque" || isResponsesOpaque(block.block);
}
