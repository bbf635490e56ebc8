import type { ContentBlock, JsonObject, JsonValue, OpaqueBlock } from "../core/message.js";
import { normalizeJson } from "../internal/json-value.js";
import { isPlainObject, spreadWith } from "../internal/plain-object.js";

/**
 * The key, in a block's `extra`, under which the Chat Completions fields our blocks do not
 * model are kept verbatim: `message` (the chat message's own fields, on its first block),
 * `content` (how its content was written: `"string"`, `"parts"`, `"null"`, `"absent"` or
 * `"empty"`, on the first block of a message read by `fromChatMessages`),
 * `part` (a content part's own fields), `refusal` (`"part"` or `"message"`: the text is a
 * refusal), `call` and `function` (a tool call's own fields) and `arguments` (its exact text).
 */
export const CHAT_COMPLETIONS_KEY = "chatCompletions";

/**
 * The `type` of the opaque block that carries an assistant message's reasoning fields as the
 * host returned them (`reasoning_content`, `reasoning`, `reasoning_details`), first in the
 * message; `toChatMessages` sends them back or leaves them out (its `reasoning` option).
 */
export const CHAT_REASONING_BLOCK_TYPE = "chatCompletions:reasoning";

/** The assistant message fields that hold the model's reasoning, across hosts. */
export const REASONING_FIELDS: readonly string[] = [
  "reasoning_content",
  "reasoning",
  "reasoning_details",
];

/** Marks an opaque block that is a content part (audio, file, a type not modelled). */
export const OPAQUE_PART_KEY = `${CHAT_COMPLETIONS_KEY}:part`;
/** On an opaque block that leads its message: the message's own fields. */
export const OPAQUE_MESSAGE_KEY = `${CHAT_COMPLETIONS_KEY}:message`;
/** On an opaque block that leads its message: how the message's content was written. */
export const OPAQUE_CONTENT_KEY = `${CHAT_COMPLETIONS_KEY}:content`;

/** What a block keeps under {@link CHAT_COMPLETIONS_KEY}. */
export interface ChatFields {
  message?: JsonObject;
  content?: JsonValue;
  part?: JsonObject;
  refusal?: JsonValue;
  call?: JsonObject;
  function?: JsonObject;
  arguments?: JsonValue;
}

/** The fields a block kept (see {@link CHAT_COMPLETIONS_KEY}); empty for one made elsewhere. */
export function fieldsOf(block: ContentBlock): ChatFields {
  if (block.type === "opaque") {
    const message = block.block[OPAQUE_MESSAGE_KEY];
    const content = block.block[OPAQUE_CONTENT_KEY];
    return {
      ...(isPlainObject(message) ? { message: message as JsonObject } : {}),
      ...(content === undefined ? {} : { content }),
    };
  }
  const fields = block.extra?.[CHAT_COMPLETIONS_KEY];
  return isPlainObject(fields) ? (fields as ChatFields) : {};
}

/** `block` with `fields` kept (nothing added when they are empty). */
export function withFields<B extends Exclude<ContentBlock, OpaqueBlock>>(
  block: B,
  fields: ChatFields,
): B {
  if (Object.keys(fields).length === 0) return block;
  const extra = spreadWith(block.extra ?? {}, { [CHAT_COMPLETIONS_KEY]: fields as JsonObject });
  return spreadWith(block, { extra });
}

/** Whether a block is the reasoning this adapter carries (see {@link CHAT_REASONING_BLOCK_TYPE}). */
export function isChatReasoningBlock(block: ContentBlock | undefined): block is OpaqueBlock {
  return block?.type === "opaque" && block.block["type"] === CHAT_REASONING_BLOCK_TYPE;
}

/** A deep copy of a JSON value (what goes out never shares an object with our messages). */
export function copyJson<T extends JsonValue>(value: T): T {
  return normalizeJson(value, [], []) as T;
}
