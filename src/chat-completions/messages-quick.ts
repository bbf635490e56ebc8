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
 * strings, the id and name not empty. Each field is read once (in one walk over the keys),
 * checked, then used, so the blocks hold nothing of the caller's but the strings checked, and a
 * getter is asked once. `false`, nothing read, for any other field or value: the full reading
 * decides (and names the issues). `messages-quick.test.ts` holds it to that.
 */
export function readQuickChatMessage(message: unknown, read: ReadMessages): boolean {
  if (!isPlainObject(message)) return false;
  let role: unknown;
  let content: unknown;
  let toolCallId: unknown;
  let calls: unknown;
  let count = 0;
  for (const key in message) {
    if (!HAS_OWN.call(message, key)) return false;
    const value = message[key];
    if (value === undefined) return false;
    if (key === "role") role = value;
    else if (key === "content") content = value;
    else if (key === "tool_call_id") toolCallId = value;
    else if (key === "tool_calls") calls = value;
    else return false;
    count += 1;
  }
  if (role === "user") {
    if (count !== 2 || typeof content !== "string") return false;
    read.add(role, listOf<ContentBlock>(textBlock(content, FORM_EXTRA.string)), true);
    return true;
  }
  if (role === "tool") {
    if (count !== 3 || !isNonEmptyString(toolCallId) || typeof content !== "string") return false;
    read.add(role, listOf<ContentBlock>(toolResultBlock(toolCallId, content, false)), true);
    return true;
  }
  return role === "assistant" && toolCallId === undefined && quickAssistant(content, calls, read);
}

/** Where messages read go, in order: each one's role and blocks. */
export interface ReadMessages {
  /**
   * `exact`: the writing gives the message back as it was read (the quick reading knows);
   * `mended`: the writing mends it (a message the API refuses: see `compact-messages.ts`).
   */
  add(role: string, blocks: ContentBlock[], exact?: boolean, mended?: boolean): void;
}

const NOWHERE: ReadMessages = { add() {} };

/** Whether {@link readQuickChatMessage} reads `message` (the quick way takes it). */
export function isQuickChatMessage(message: unknown): boolean {
  return readQuickChatMessage(message, NOWHERE);
}

const NO_CALLS: readonly unknown[] = [];

/** The form of an assistant message's content, as the full reading keeps it; `undefined` for another. */
type ContentForm = "string" | "null" | "absent";

function contentForm(content: unknown): ContentForm | undefined {
  if (typeof content === "string") return "string";
  if (content === null) return "null";
  return content === undefined ? "absent" : undefined;
}

/** Reads into `read` an assistant message of its `content` and `tool_calls` (as read once). */
function quickAssistant(content: unknown, listed: unknown, read: ReadMessages): boolean {
  const form = contentForm(content);
  if (form === undefined || (listed !== undefined && !Array.isArray(listed))) return false;
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
    if (call === undefined) return false;
    blocks[index + text] = call;
  }
  // Written as read: one of calls, or of a string content alone. Without calls, `null` or no
  // content is written `""`, and an empty `tool_calls` is left out: the writing mends those.
  const exact = listed === undefined ? text === 1 : count > 0;
  read.add("assistant", blocks, exact, !exact);
  return true;
}

/** A function call as a block, its content `form` kept when it is the message's first block. */
function quickCall(call: unknown, form: ContentForm | undefined): ContentBlock | undefined {
  if (!isPlainObject(call)) return undefined;
  let id: unknown;
  let type: unknown;
  let target: unknown;
  let count = 0;
  for (const key in call) {
    if (!HAS_OWN.call(call, key)) return undefined;
    const value = call[key];
    if (value === undefined) return undefined;
    if (key === "id") id = value;
    else if (key === "type") type = value;
    else if (key === "function") target = value;
    else return undefined;
    count += 1;
  }
  if (count !== 3 || type !== "function" || !isNonEmptyString(id) || !isPlainObject(target))
    return undefined;
  let name: unknown;
  let raw: unknown;
  count = 0;
  for (const key in target) {
    if (!HAS_OWN.call(target, key)) return undefined;
    const value = target[key];
    if (value === undefined) return undefined;
    if (key === "name") name = value;
    else if (key === "arguments") raw = value;
    else return undefined;
    count += 1;
  }
  if (count !== 2 || !isNonEmptyString(name) || typeof raw !== "string") return undefined;
  // A model's usual arguments are read in one pass (`flatArguments`), any other text as every reading takes it.
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
