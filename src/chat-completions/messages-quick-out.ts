import type {
  ContentBlock,
  JsonObject,
  Message,
  OpaqueBlock,
  ToolUseBlock,
} from "../core/message.js";
import { hasOnlyKeys, isPlainObject } from "../internal/plain-object.js";
import { toolArgumentsText } from "../internal/tool-arguments.js";
import { CHAT_COMPLETIONS_KEY } from "./chat-fields.js";

type PlainBlock = Exclude<ContentBlock, OpaqueBlock>;

/**
 * Writes into `out` the chat messages `toChatMessages` writes for the messages a conversation is
 * mostly made of, built without the field lists, spreads and copies of the full writing: a user
 * message of one text block read from a string content or with no Chat Completions fields (the
 * library's own, another provider's); a user message of tool results of text with no Chat
 * Completions fields; an assistant message of such a text block, of function calls (its content
 * read as `null` or absent, or unmarked: `null`), or of both, with at most the calls' exact
 * `arguments` kept. `false`, `out` as it was, for any other message: the full
 * writing decides. `messages-quick.test.ts` holds it to that.
 */
export function writeQuickChatMessage(message: Message, out: JsonObject[]): boolean {
  return message.role === "assistant" ? quickAssistant(message, out) : quickUser(message, out);
}

/** The messages written, each a spread of its shape, every field set (see `core/message-shapes.ts`). */
const WIRE = {
  user: { role: "user", content: "" },
  tool: { role: "tool", tool_call_id: "", content: "" },
  assistant: { role: "assistant", content: "" },
  calls: { role: "assistant", tool_calls: undefined },
  textAndCalls: { role: "assistant", content: "", tool_calls: undefined },
  call: { type: "function", id: "", function: undefined },
  function: { name: "", arguments: "" },
} as const;

// The keys a block may keep, by where it is (constants: an array literal is a new array per call).
const CONTENT_KEYS = ["content"];
const NO_KEYS: readonly string[] = [];
const FIRST_CALL_KEYS = ["content", "arguments"];
const CALL_KEYS = ["arguments"];

/**
 * The block's Chat Completions fields when all their keys are among `keys`; `undefined` when it
 * has none; `false` when it has others.
 */
function keptFields(block: ContentBlock, keys: readonly string[]) {
  if (block.type === "opaque") return false;
  const kept: unknown = block.extra?.[CHAT_COMPLETIONS_KEY];
  if (kept === undefined) return undefined;
  if (!isPlainObject(kept)) return false;
  return hasOnlyKeys(kept, keys) && kept;
}

/** Whether `block` is a text block read from a string content (its only field that form). */
function isStringContent(block: ContentBlock | undefined): block is PlainBlock & { text: string } {
  if (block?.type !== "text") return false;
  const kept = keptFields(block, CONTENT_KEYS);
  return kept !== undefined && kept !== false && kept["content"] === "string";
}

/** Whether `block` is a text block with no Chat Completions fields (one the library or another provider made). */
function isUnmarkedText(block: ContentBlock | undefined): block is PlainBlock & { text: string } {
  return block?.type === "text" && keptFields(block, NO_KEYS) === undefined;
}

function quickUser(message: Message, out: JsonObject[]): boolean {
  const { content } = message;
  const first = content[0];
  if (content.length === 1 && (isStringContent(first) || isUnmarkedText(first))) {
    out.push({ ...WIRE.user, content: first.text });
    return true;
  }
  const before = out.length;
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index]!;
    if (
      block.type !== "tool_result" ||
      typeof block.content !== "string" ||
      keptFields(block, NO_KEYS) !== undefined
    ) {
      out.length = before;
      return false;
    }
    out.push({ ...WIRE.tool, tool_call_id: block.toolUseId, content: block.content });
  }
  return true;
}

function quickAssistant(message: Message, out: JsonObject[]): boolean {
  const { content } = message;
  const first = content[0];
  // The message's content: its text, `null`, or `undefined` when it goes without one.
  let text: string | null | undefined;
  let start = 0;
  if (isStringContent(first) || isUnmarkedText(first)) {
    text = first.text;
    start = 1;
  } else {
    if (first?.type !== "tool_use") return false;
    const form = keptFields(first, FIRST_CALL_KEYS);
    // Calls the library or another provider made go with `content: null`, as the full writing sends them.
    if (form === false) return false;
    if (form === undefined || form["content"] === "null") text = null;
    else if (form["content"] !== "absent") return false;
  }
  if (start === content.length) {
    out.push({ ...WIRE.assistant, content: text as string });
    return true;
  }
  const calls: JsonObject[] = new Array(content.length - start);
  for (let index = start; index < content.length; index += 1) {
    const block = content[index]!;
    if (block.type !== "tool_use") return false;
    const kept = keptFields(block, index === 0 ? FIRST_CALL_KEYS : CALL_KEYS);
    if (kept === false) return false;
    calls[index - start] = callOf(block, kept?.["arguments"]);
  }
  out.push(
    text === undefined
      ? { ...WIRE.calls, tool_calls: calls }
      : { ...WIRE.textAndCalls, content: text, tool_calls: calls },
  );
  return true;
}

function callOf(block: ToolUseBlock, raw: unknown): JsonObject {
  const text = toolArgumentsText(block.input, raw as JsonObject[string]);
  return {
    ...WIRE.call,
    id: block.id,
    function: { ...WIRE.function, name: block.name, arguments: text },
  };
}
