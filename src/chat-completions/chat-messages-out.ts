import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import * as z from "zod/mini";
import { withoutBookkeeping } from "../core/bookkeeping-keys.js";
import { isSystemMessage, readableMessages } from "../core/conversation-structure.js";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import { assertMessages } from "../core/entry-validation.js";
import { parseOrThrow } from "../core/errors.js";
import type {
  ContentBlock,
  JsonObject,
  JsonValue,
  Message,
  SystemMessageBlock,
  ToolResultBlock,
} from "../core/message.js";
import { optionsSchema } from "../core/option-schemas.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { isPlainObject, without } from "../internal/plain-object.js";
import { systemText } from "../internal/system-text.js";
import {
  type ChatFields,
  copyJson,
  fieldsOf,
  isChatReasoningBlock,
  REASONING_FIELDS,
} from "./chat-fields.js";
import { joinedUserMessages } from "./joined-user-messages.js";
import { writeQuickChatMessage } from "./messages-quick-out.js";
import {
  carriedMessage,
  contentPart,
  imagePart,
  isCarriedMessage,
  isPlainTextPart,
  textPart,
  toolCall,
} from "./parts-out.js";
import { requestAudio } from "./request-audio.js";

/** What {@link toChatMessages} does with the reasoning a host returned: send it back, or not. */
export type ReasoningPolicy = "keep" | "drop";

/** Options of {@link toChatMessages}. */
export interface ToChatMessagesOptions {
  /**
   * Whether assistant messages carry back the reasoning fields the host returned
   * (`reasoning_content`, `reasoning`, `reasoning_details`): `"keep"` for DeepSeek (required in
   * turns that called tools, else ignored), OpenRouter (`reasoning_details` with signatures)
   * and vLLM (the chat template decides); `"drop"` for Groq (it refuses the fields).
   * @default "keep"
   */
  reasoning?: ReasoningPolicy;
}

/** The message's own fields and content form, kept on its first block that has them. */
function messageFields(message: Message): { fields: JsonObject; form: JsonValue | undefined } {
  for (const block of message.content) {
    const kept = fieldsOf(block);
    if (kept.message !== undefined || kept.content !== undefined) {
      return {
        fields: kept.message === undefined ? {} : copyJson(kept.message),
        form: kept.content,
      };
    }
  }
  return { fields: {}, form: undefined };
}

/** The empty text block that held a message's fields when its content gave none. */
function isPlaceholder(block: ContentBlock, fields: ChatFields): boolean {
  return (
    block.type === "text" &&
    block.text === "" &&
    fields.refusal === undefined &&
    (fields.content === "null" || fields.content === "absent" || fields.content === "empty")
  );
}

/**
 * The `content` of parts, written as it came (a string, `null`, absent, `[]`, parts); parts
 * written elsewhere (a summary, a notice) as one string when they are all plain text.
 * `undefined` means no content (absent, or `null`: the caller decides).
 */
function contentOf(parts: JsonObject[], form: JsonValue | undefined): JsonValue | undefined {
  if (parts.length === 0) return form === "empty" ? [] : form === "null" ? null : undefined;
  if (form === "string" && parts.length === 1 && isPlainTextPart(parts[0]!)) return parts[0].text;
  if (form === undefined && parts.every(isPlainTextPart)) {
    return parts.map((part) => part.text).join("\n\n");
  }
  return parts;
}

/**
 * An assistant message as Chat Completions takes it; its images (another model's: a Gemini
 * image model's reply, a LangChain `AIMessage`'s), which an assistant message cannot hold
 * (text and refusal parts only), go to `moved`. `undefined` when it has nothing the API reads
 * (only another API's blocks: Anthropic's thinking or server tools, Responses hosted tools).
 */
function assistantMessage(
  message: Message,
  reasoning: ReasoningPolicy,
  moved: JsonObject[],
): JsonObject | undefined {
  const { fields, form } = messageFields(message);
  const parts: JsonObject[] = [];
  const calls: JsonObject[] = [];
  let refusal: string | undefined;
  let thoughts: JsonObject = {};
  for (const block of message.content) {
    const kept = fieldsOf(block);
    if (isPlaceholder(block, kept)) continue;
    if (block.type === "tool_use") calls.push(toolCall(block));
    else if (block.type === "text" && kept.refusal === "message") {
      refusal = refusal === undefined ? block.text : `${refusal}\n${block.text}`;
    } else if (isChatReasoningBlock(block)) {
      thoughts = { ...thoughts, ...without(copyJson(block.block), ["type"]) };
    } else if (block.type === "image") moved.push(imagePart(block, kept));
    else {
      const part = contentPart(block);
      if (part !== undefined) parts.push(part);
    }
  }
  const out: JsonObject = { role: "assistant", ...fields };
  // As the reading keeps it, for a message kept before it did: the reply's data is not sent.
  const { audio, transcript } = requestAudio(out["audio"]);
  if (audio === undefined) delete out["audio"];
  else out["audio"] = audio;
  if (reasoning === "drop") for (const key of REASONING_FIELDS) delete out[key];
  else Object.assign(out, thoughts);
  const sends = parts.length > 0 || calls.length > 0 || refusal !== undefined;
  // A message of no block goes as it was (as `toAnthropicMessages` sends it).
  if (!sends && form === undefined && Object.keys(out).length === 1 && message.content.length > 0)
    return undefined;
  const content = contentOf(parts, form);
  // A deprecated `function_call` (kept with the message's fields) answers as calls do.
  const answered = calls.length > 0 || refusal !== undefined || out["function_call"] !== undefined;
  // An audio reply the request names by its id needs no text: `null` as the API gave it. Kept
  // with its transcript (by an earlier version), the transcript is its text.
  const voiced = isPlainObject(audio) && transcript === undefined;
  // Content goes as it came; without calls, a refusal or audio, an assistant message needs some.
  if (content !== undefined && (content !== null || answered || voiced)) out["content"] = content;
  else if (!answered && !voiced) out["content"] = transcript ?? "";
  else if (form !== "absent") out["content"] = null;
  if (refusal !== undefined) out["refusal"] = refusal;
  if (calls.length > 0) out["tool_calls"] = calls;
  return out;
}

/**
 * Fields other APIs' system messages carry that no chat message has: LangChain's `id`,
 * `additional_kwargs` and `response_metadata`, the AI SDK's `providerOptions`.
 */
const FOREIGN_SYSTEM_FIELDS = ["id", "additional_kwargs", "response_metadata", "providerOptions"];

/**
 * A mid-conversation system message as Chat Completions takes it. One in its shape (`role`
 * `system` or `developer`, no `type`, content a string or `text` parts: the API's own) goes as
 * it came, less the library's bookkeeping and the fields of other APIs' system messages
 * ({@link FOREIGN_SYSTEM_FIELDS}), which the API refuses (`Unknown parameter`) as strict hosts
 * do; another (a Responses `developer` item of `input_text` parts) as `{ role, content }` of its
 * text, or not at all when it has none. It went verbatim, and the API refused it.
 */
function chatSystemMessage(message: JsonObject): JsonObject | undefined {
  const { role, content } = message;
  const ownShape =
    (role === "system" || role === "developer") &&
    !Object.hasOwn(message, "type") &&
    (typeof content === "string" ||
      (Array.isArray(content) &&
        content.every((part) => isPlainObject(part) && part["type"] === "text")));
  if (ownShape) return without(withoutBookkeeping(copyJson(message)), FOREIGN_SYSTEM_FIELDS);
  const text = systemText(content);
  return text === ""
    ? undefined
    : { role: role === "developer" ? "developer" : "system", content: text };
}

/** A tool result as a `tool` message; parts a tool message cannot hold (images) go to `moved`. */
function toolMessage(block: ToolResultBlock, moved: JsonObject[]): JsonObject {
  const kept = fieldsOf(block);
  const own = kept.message === undefined ? {} : copyJson(kept.message);
  let content: JsonValue;
  if (typeof block.content === "string") content = block.content;
  else {
    const parts: JsonObject[] = [];
    for (const part of block.content) {
      const written = part.type === "text" ? textPart(part, fieldsOf(part)) : contentPart(part);
      if (written === undefined) continue;
      if (written["type"] === "text") parts.push(written);
      else moved.push(written);
    }
    // No part to send: `""`, as the API refuses an empty array (its schema: at least one part).
    content = parts.length === 0 ? "" : parts;
  }
  return { role: "tool", ...own, tool_call_id: block.toolUseId, content };
}

/** A user message: its tool results as `tool` messages first, then the rest as one message. */
function userMessages(message: Message): JsonObject[] {
  const { fields, form } = messageFields(message);
  const out: JsonObject[] = [];
  const moved: JsonObject[] = [];
  const parts: JsonObject[] = [];
  for (const block of message.content) {
    const carried = carriedMessage(block);
    if (carried !== undefined) out.push(carried);
    else if (block.type === "tool_result") out.push(toolMessage(block, moved));
    else if (!isPlaceholder(block, fieldsOf(block))) {
      const part = contentPart(block);
      if (part !== undefined) parts.push(part);
    }
  }
  const hasContent = parts.length > 0 || moved.length > 0 || form !== undefined;
  if (!hasContent) return out;
  const content = contentOf([...moved, ...parts], moved.length > 0 ? "parts" : form);
  out.push({ role: "user", ...fields, content: content ?? "" });
  return out;
}

/** Whether `message` (not a system one) has nothing Chat Completions reads: other APIs' blocks only. */
function writesNothing(message: Message, reasoning: ReasoningPolicy): boolean {
  if (isSystemMessage(message)) return false;
  return message.role === "assistant"
    ? assistantMessage(message, reasoning, []) === undefined
    : userMessages(message).length === 0;
}

/**
 * Converts our messages to a Chat Completions `messages` array, the inverse of
 * {@link fromChatMessages}: what it read comes back as it was (`tool_call_id` pairing, parallel
 * calls, `name`, parts, refusals, the exact `arguments`). A user message's tool results become
 * `tool` messages, in order, before the rest of it; an image in a tool result (which a `tool`
 * message cannot hold) moves to a user message right after them; a result's `isError` has no
 * field in Chat Completions (its content says it). Another model's image in an assistant
 * message (which holds text and refusals only) goes in the user message after it, after the
 * `tool` messages answering its calls; an assistant message of only another API's blocks is
 * left out, but between two user messages, where it stays empty so the roles alternate (see
 * `joinedUserMessages`). A call whose id an earlier, answered call had
 * (a host numbering each reply's calls, `call_0` every time) goes with its result as
 * `<id>_<n>`, as the API refuses a `tool_call_id` twice in a request. Messages written elsewhere
 * get plain shapes (a summary as a user message with string content); Anthropic's thinking
 * blocks and other providers' opaque blocks are left out. Prepend your system prompt.
 *
 * @example
 * const completion = await client.chat.completions.create({
 *   model, messages: [{ role: "system", content: SYSTEM }, ...toChatMessages(session.messages)],
 * });
 * @throws {ValidationError} naming the field when `messages` are not the library's messages
 * (Chat Completions messages go through `fromChatMessages` first) or two share an id.
 */
export function toChatMessages(
  messages: readonly Message[],
  options: ToChatMessagesOptions = {},
): ChatCompletionMessageParam[] {
  // Cheap for a session's messages: each message object is fully checked only once.
  assertMessages(messages, "messages");
  const reasoning = reasoningOption(options);
  return writeChatMessages(withDistinctToolIds(readableMessages(messages)), reasoning);
}

/**
 * {@link toChatMessages} of messages checked where they entered (a one-call helper's): a
 * message that `origins` knows unchanged goes as the caller's chat messages it came from.
 */
export function writeChatMessages(
  messages: readonly Message[],
  reasoning: ReasoningPolicy,
  origins?: ItemOrigins<ChatCompletionMessageParam>,
): ChatCompletionMessageParam[] {
  const out: JsonObject[] = [];
  const reused = out as unknown as ChatCompletionMessageParam[];
  // Where the library's own user messages were written: joined with a user message beside them.
  const written: number[] = [];
  // Where an assistant message of nothing to send stands: left out (see joinedUserMessages).
  const silent: number[] = [];
  // The caller's messages beside the library's, as read (so not read again: joinedUserMessages).
  const seen = new Map<number, JsonObject>();
  // The message of ours whose caller's messages `origins` put last, and where they are.
  let put: Message | undefined;
  let putStart = 0;
  let putEnd = 0;
  const noteSeen = (index: number) => {
    if (put !== undefined && index >= putStart && index < putEnd)
      seen.set(index, asRead(put, index - putStart, out[index]!));
  };
  // The images of the assistant message before, for a user message after its calls' results.
  let moved: JsonObject[] = [];
  const placeImages = (at: number) => {
    written.push(at);
    out.splice(at, 0, { role: "user", content: moved });
    moved = [];
    noteSeen(at - 1);
  };
  for (const message of readableMessages(messages)) {
    // The tool messages this message starts with: those that answer the calls before.
    const results = moved.length === 0 ? 0 : toolMessagesOf(message);
    // An assistant message of nothing to send (other APIs' blocks) between the calls and their
    // results is left out: the images wait for the results after it.
    // A message that writes nothing (of other APIs' blocks only) between the calls and their
    // results is left out: the images wait for the results after it.
    if (moved.length > 0 && results === 0 && !writesNothing(message, reasoning))
      placeImages(out.length);
    const start = out.length;
    const library = message.generated !== undefined && message.role === "user";
    if (library) {
      written.push(start);
      noteSeen(start - 1);
    }
    const after = written.at(-1) === start - 1;
    if (isSystemMessage(message)) {
      const system = chatSystemMessage((message.content[0] as SystemMessageBlock).block.message);
      if (system !== undefined) out.push(system);
    } else if (origins !== undefined && origins.put(message, reused, start) !== -1) {
      put = message;
      putStart = start;
      putEnd = out.length;
      if (after) noteSeen(start);
    } else if (!writeQuickChatMessage(message, out)) {
      if (message.role !== "assistant") out.push(...userMessages(message));
      else {
        const assistant = assistantMessage(message, reasoning, moved);
        if (assistant === undefined) silent.push(start);
        out.push(assistant ?? { role: "assistant", content: "" });
      }
    }
    // After its results, unless more results may follow (a message of results alone).
    if (results > 0 && out.length > start + results) placeImages(start + results);
  }
  if (moved.length > 0) placeImages(out.length);
  return joinedUserMessages(out, written, silent, seen) as unknown as ChatCompletionMessageParam[];
}

/**
 * The caller's chat message `caller`, put for the block at `offset` of `message` (read by the
 * quick reading: what it holds is in our blocks), as read: a user message `{ role, content }`
 * written anew in the caller's key order (the keys alone are read: no getter runs), another by
 * its role alone.
 */
function asRead(message: Message, offset: number, caller: JsonObject): JsonObject {
  if (message.role === "assistant") return { role: "assistant" };
  const block = message.content[offset];
  if (block?.type !== "text") return { role: "tool" };
  return contentFirst(caller)
    ? { content: block.text, role: "user" }
    : { role: "user", content: block.text };
}

/**
 * Whether the caller's message lists `content` first; not when its keys cannot be listed again
 * (a proxy whose key listing answered the reading, then threw): the message was read, and
 * `role` first is the order of the API's own messages.
 */
function contentFirst(caller: JsonObject): boolean {
  try {
    return Object.keys(caller)[0] === "content";
  } catch {
    return false;
  }
}

/** How many `tool` (or legacy `function`) messages a message is written as first. */
function toolMessagesOf(message: Message): number {
  if (message.role !== "user") return 0;
  let count = 0;
  for (const block of message.content)
    if (block.type === "tool_result" || isCarriedMessage(block)) count += 1;
  return count;
}

/**
 * The chat messages of one of our messages (not a system one), by the full writing: an
 * assistant message's images are left out (see {@link writeChatMessages}), and one of nothing
 * to send is `{ role: "assistant", content: "" }`.
 */
export function chatMessagesInFull(message: Message, reasoning: ReasoningPolicy): JsonObject[] {
  return message.role === "assistant"
    ? [assistantMessage(message, reasoning, []) ?? { role: "assistant", content: "" }]
    : userMessages(message);
}

/** Schema of {@link ToChatMessagesOptions}. */
const ToChatMessagesOptionsSchema = optionsSchema({
  reasoning: z.exactOptional(z.enum(["keep", "drop"], { error: 'must be "keep" or "drop"' })),
});

function reasoningOption(options: ToChatMessagesOptions): ReasoningPolicy {
  return (
    parseOrThrow(ToChatMessagesOptionsSchema, options, "toChatMessages options").reasoning ?? "keep"
  );
}
