import type { ContentBlock, JsonValue, OpaqueBlock } from "../core/message.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { isPlainObject } from "../internal/plain-object.js";
import { parseToolArguments } from "../internal/tool-arguments.js";
import { CHAT_COMPLETIONS_KEY } from "./chat-fields.js";

/**
 * Whether `message` is one of the chat messages a conversation is mostly made of, in a shape
 * the full reading turns into blocks that hold nothing of the caller's but strings (so it may
 * read the caller's message itself, without the copy it otherwise starts from): a user message
 * `{ role, content }` of a string; a tool message `{ role, tool_call_id, content }` of strings;
 * an assistant message `{ role, content?, tool_calls? }` whose content is a string or `null` and
 * whose calls are `{ id, type: "function", function: { name, arguments } }` of strings, the id
 * and name not empty. Any other field or value: `false`, and the full reading decides (and
 * names the issues). `messages-quick.test.ts` holds it to that.
 */
export function isQuickChatMessage(message: unknown): message is Record<string, unknown> {
  if (!isPlainObject(message)) return false;
  switch (message["role"]) {
    case "user":
      return hasExactly(message, USER_KEYS) && typeof message["content"] === "string";
    case "tool":
      return (
        hasExactly(message, TOOL_KEYS) &&
        isNonEmptyString(message["tool_call_id"]) &&
        typeof message["content"] === "string"
      );
    case "assistant":
      return isQuickAssistant(message);
    default:
      return false;
  }
}

const USER_KEYS = ["role", "content"];
const TOOL_KEYS = ["role", "tool_call_id", "content"];
const ASSISTANT_KEYS = ["role", "content", "tool_calls"];
const CALL_KEYS = ["id", "type", "function"];
const FUNCTION_KEYS = ["name", "arguments"];

/** Whether `value`'s own keys are all among `keys` (`exact`: all of them), none `undefined`. */
function hasExactly(value: Record<string, unknown>, keys: readonly string[], exact = true) {
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !keys.includes(key) || value[key] === undefined) return false;
    count += 1;
  }
  return !exact || count === keys.length;
}

function isQuickAssistant(message: Record<string, unknown>): boolean {
  if (!hasExactly(message, ASSISTANT_KEYS, false)) return false;
  const { content } = message;
  if (content !== undefined && content !== null && typeof content !== "string") return false;
  const calls = message["tool_calls"];
  if (calls === undefined) return true;
  if (!Array.isArray(calls)) return false;
  for (let index = 0; index < calls.length; index += 1)
    if (!isQuickCall(calls[index])) return false;
  return true;
}

function isQuickCall(call: unknown): boolean {
  if (!isPlainObject(call) || !hasExactly(call, CALL_KEYS)) return false;
  const target = call["function"];
  return (
    call["type"] === "function" &&
    isNonEmptyString(call["id"]) &&
    isPlainObject(target) &&
    hasExactly(target, FUNCTION_KEYS) &&
    isNonEmptyString(target["name"]) &&
    typeof target["arguments"] === "string"
  );
}

/**
 * The blocks the full reading gives a message {@link isQuickChatMessage} accepts, built from its
 * strings directly (without the copy, the spreads and the field lists the full reading makes);
 * `undefined` for any other message.
 */
export function quickChatBlocks(message: unknown): ContentBlock[] | undefined {
  if (!isQuickChatMessage(message)) return undefined;
  switch (message["role"]) {
    case "user":
      return [withContentForm({ type: "text", text: message["content"] as string }, "string")];
    case "tool":
      return [
        {
          type: "tool_result",
          toolUseId: message["tool_call_id"] as string,
          content: message["content"] as string,
          isError: false,
        },
      ];
    default:
      return quickAssistantBlocks(message);
  }
}

type PlainBlock = Exclude<ContentBlock, OpaqueBlock>;

/** `block` (made here) with the form of its message's content kept beside its own fields. */
function withContentForm<B extends PlainBlock>(block: B, form: JsonValue): B {
  const kept = block.extra?.[CHAT_COMPLETIONS_KEY] as Record<string, JsonValue> | undefined;
  const fields = kept === undefined ? { content: form } : { ...kept, content: form };
  block.extra = { [CHAT_COMPLETIONS_KEY]: fields };
  return block;
}

function quickAssistantBlocks(message: Record<string, unknown>): ContentBlock[] {
  const { content } = message;
  const blocks: PlainBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : [];
  // Their shape is known: isQuickChatMessage looked at every field.
  const calls = message["tool_calls"] as Record<string, unknown>[] | undefined;
  if (calls !== undefined) {
    for (const call of calls) {
      const target = call["function"] as Record<string, string>;
      const raw = target["arguments"] as string;
      const { input, keep } = parseToolArguments(raw);
      const id = call["id"] as string;
      const name = target["name"] as string;
      blocks.push(
        keep
          ? {
              type: "tool_use",
              id,
              name,
              input,
              extra: { [CHAT_COMPLETIONS_KEY]: { arguments: raw } },
            }
          : { type: "tool_use", id, name, input },
      );
    }
  }
  const form = typeof content === "string" ? "string" : content === null ? "null" : "absent";
  blocks[0] = withContentForm(blocks[0] ?? { type: "text", text: "" }, form);
  return blocks;
}
