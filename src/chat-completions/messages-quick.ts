import type { ContentBlock, JsonObject } from "../core/message.js";
import { keyed, listOf, textBlock, toolResultBlock, toolUseBlock } from "../core/message-shapes.js";
import { freezeDeeply } from "../internal/frozen.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { HAS_OWN, isPlainObject } from "../internal/plain-object.js";
import { parseToolArguments } from "../internal/tool-arguments.js";
import { CHAT_COMPLETIONS_KEY } from "./chat-fields.js";

/**
 * Reads into `read` one of the chat messages a conversation is mostly made of, as the full
 * reading would (its role, and the same blocks), from the caller's message itself: without the
 * copy the full reading starts from, its spreads and its field lists. Those messages: a user
 * message `{ role, content }` of a string; a tool message `{ role, tool_call_id, content }` of
 * strings; an assistant message `{ role, content?, tool_calls? }` whose content is a string or
 * `null` and whose calls are `{ id, type: "function", function: { name, arguments } }` of
 * strings, the id and name not empty. Each value is read once, checked, then used, so the blocks
 * hold nothing of the caller's but the strings checked. `false`, nothing read, for any other
 * field or value: the full reading decides (and names the issues). `messages-quick.test.ts`
 * holds it to that.
 */
export function readQuickChatMessage(message: unknown, read: ReadMessages): boolean {
  const role = isPlainObject(message) ? message["role"] : undefined;
  if (role !== "user" && role !== "tool" && role !== "assistant") return false;
  const blocks = quickChatBlocks(message as Record<string, unknown>, role);
  if (blocks === undefined) return false;
  read.add(role, blocks, role !== "assistant" || writtenAsRead(message as Record<string, unknown>));
  return true;
}

/**
 * Whether the writing gives back an assistant message the quick reading took as it was: one of
 * calls, or of a string content alone (without calls, `null` or no content is written `""`,
 * and an empty `tool_calls` is left out).
 */
function writtenAsRead(message: Record<string, unknown>): boolean {
  const calls = message["tool_calls"];
  return calls === undefined
    ? typeof message["content"] === "string"
    : (calls as unknown[]).length > 0;
}

/** Where messages read go, in order: each one's role and blocks. */
export interface ReadMessages {
  /** `exact`: the writing gives the message back as it was read (the quick reading knows). */
  add(role: string, blocks: ContentBlock[], exact?: boolean): void;
}

const NOWHERE: ReadMessages = { add() {} };

/** Whether {@link readQuickChatMessage} reads `message` (the quick way takes it). */
export function isQuickChatMessage(message: unknown): boolean {
  return readQuickChatMessage(message, NOWHERE);
}

function quickChatBlocks(
  message: Record<string, unknown>,
  role: "user" | "tool" | "assistant",
): ContentBlock[] | undefined {
  switch (role) {
    case "user": {
      if (!hasExactly(message, USER_KEYS)) return undefined;
      const content = message["content"];
      if (typeof content !== "string") return undefined;
      return listOf<ContentBlock>(textBlock(content, FORM_EXTRA.string));
    }
    case "tool": {
      if (!hasExactly(message, TOOL_KEYS)) return undefined;
      const toolUseId = message["tool_call_id"];
      const content = message["content"];
      if (!isNonEmptyString(toolUseId) || typeof content !== "string") return undefined;
      return listOf<ContentBlock>(toolResultBlock(toolUseId, content, false));
    }
    default:
      return quickAssistantBlocks(message);
  }
}

const USER_KEYS = ["role", "content"];
const TOOL_KEYS = ["role", "tool_call_id", "content"];
const ASSISTANT_KEYS = ["role", "content", "tool_calls"];
const CALL_KEYS = ["id", "type", "function"];
const FUNCTION_KEYS = ["name", "arguments"];
const NO_CALLS: readonly unknown[] = [];

/** Whether `value`'s own keys are all among `keys` (`exact`: all of them), none `undefined`. */
function hasExactly(value: Record<string, unknown>, keys: readonly string[], exact = true) {
  let count = 0;
  for (const key in value) {
    if (!HAS_OWN.call(value, key) || !keys.includes(key) || value[key] === undefined) return false;
    count += 1;
  }
  return !exact || count === keys.length;
}

/** The form of an assistant message's content, as the full reading keeps it; `undefined` for another. */
type ContentForm = "string" | "null" | "absent";

function contentForm(content: unknown): ContentForm | undefined {
  if (typeof content === "string") return "string";
  if (content === null) return "null";
  return content === undefined ? "absent" : undefined;
}

function quickAssistantBlocks(message: Record<string, unknown>): ContentBlock[] | undefined {
  if (!hasExactly(message, ASSISTANT_KEYS, false)) return undefined;
  const content = message["content"];
  const listed = message["tool_calls"];
  const form = contentForm(content);
  if (form === undefined || (listed !== undefined && !Array.isArray(listed))) return undefined;
  const calls: readonly unknown[] = listed ?? NO_CALLS;
  const count = calls.length;
  // The form of the content is kept on the first block: the text, or else the first call.
  const text = typeof content === "string" ? 1 : 0;
  // Made as long as it will be, unless the caller's list says it is long (a hole then ends the
  // quick reading before any room is made for it); filled in order either way.
  const blocks: ContentBlock[] = count <= 64 ? new Array(Math.max(text + count, 1)) : [];
  if (typeof content === "string") blocks[0] = textBlock(content, FORM_EXTRA[form]);
  else if (count === 0) blocks[0] = textBlock("", FORM_EXTRA[form]);
  for (let index = 0; index < count; index += 1) {
    const call = quickCall(calls[index], index + text === 0 ? form : undefined);
    if (call === undefined) return undefined;
    blocks[index + text] = call;
  }
  return blocks;
}

/** A function call as a block, its content `form` kept when it is the message's first block. */
function quickCall(call: unknown, form: ContentForm | undefined): ContentBlock | undefined {
  if (!isPlainObject(call) || !hasExactly(call, CALL_KEYS)) return undefined;
  const id = call["id"];
  const target = call["function"];
  if (call["type"] !== "function" || !isNonEmptyString(id)) return undefined;
  if (!isPlainObject(target) || !hasExactly(target, FUNCTION_KEYS)) return undefined;
  const name = target["name"];
  const raw = target["arguments"];
  if (!isNonEmptyString(name) || typeof raw !== "string") return undefined;
  const { input, keep } = parseToolArguments(raw);
  if (!keep)
    return toolUseBlock(id, name, input, form === undefined ? undefined : FORM_EXTRA[form]);
  // Made field by field, as a literal's allocation site would be pretenured.
  const fields: JsonObject = {};
  fields["arguments"] = raw;
  if (form !== undefined) fields["content"] = form;
  return toolUseBlock(id, name, input, keyed(CHAT_COMPLETIONS_KEY, fields));
}

/**
 * The `extra` of a block that keeps only its message's content form: one frozen object per
 * form, shared (a literal per block would have its allocation site pretenured: see
 * `core/message-shapes.ts`).
 */
const FORM_EXTRA = {
  string: formExtra("string"),
  null: formExtra("null"),
  absent: formExtra("absent"),
};

function formExtra(form: string): JsonObject {
  return freezeDeeply({ [CHAT_COMPLETIONS_KEY]: { content: form } });
}
