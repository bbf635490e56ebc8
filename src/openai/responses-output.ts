import type { ResponseInputItem } from "openai/resources/responses/responses";
import { withoutBookkeeping } from "../core/bookkeeping-keys.js";
import { isSystemMessage, readableMessages } from "../core/conversation-structure.js";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import { assertMessages } from "../core/entry-validation.js";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  Message,
  SystemMessageBlock,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "../core/message.js";
import { isModelItem, opaqueType } from "../core/provider-validity.js";
import { type ItemOrigins, sendsWhole } from "../internal/item-origins.js";
import { normalizeJson } from "../internal/json-value.js";
import { isPlainObject, spreadWith } from "../internal/plain-object.js";
import { systemText } from "../internal/system-text.js";
import { toolArgumentsText } from "../internal/tool-arguments.js";
import { sendsToResponses } from "./foreign-items.js";
import { OPAQUE_CONTINUES_KEY, OPAQUE_ITEM_KEY, OPENAI_KEY, PART_TYPES } from "./items-in.js";
import { pushQuickItems } from "./items-quick-out.js";

/** A deep copy of what a message holds, to hand out: the caller's items never share our objects. */
function copied<T extends JsonValue>(value: T): T {
  return normalizeJson(value, [], []) as T;
}

/** The Responses API fields a block kept (see {@link OPENAI_KEY}), a copy; empty for one made elsewhere. */
function fieldsOf(block: ContentBlock): JsonObject {
  if (block.type === "opaque") return {};
  const fields = block.extra?.[OPENAI_KEY];
  return isPlainObject(fields) ? copied(fields as JsonObject) : {};
}

function objectField(fields: JsonObject, key: string): JsonObject | undefined {
  const value = fields[key];
  return isPlainObject(value) ? (value as JsonObject) : undefined;
}

/** Builds the item list, joining the parts of one message item. */
export class ItemWriter {
  readonly items: JsonObject[] = [];
  /** The message item parts join: its role, and whether this writer made it. */
  #open: { item: JsonObject; parts: JsonValue[]; role: string; made: boolean } | undefined;

  close(): void {
    this.#open = undefined;
  }

  whole(item: JsonObject): void {
    this.close();
    this.items.push(item);
  }

  /** A content part: joins its item, starts the item it heads, or joins one made here. */
  part(
    part: JsonObject,
    role: Message["role"],
    marks: { item?: JsonObject; continues?: boolean; content?: JsonValue },
  ): void {
    const open = this.#open;
    if (marks.continues === true && open !== undefined) {
      open.parts.push(part);
      return;
    }
    if (marks.item !== undefined) {
      const text = typeof part["text"] === "string" ? part["text"] : "";
      if (marks.content === "string" || marks.content === "empty") {
        this.whole(spreadWith(marks.item, { content: marks.content === "string" ? text : [] }));
        return;
      }
      const parts: JsonValue[] = [part];
      this.whole(spreadWith(marks.item, { content: parts }));
      this.#open = {
        item: marks.item,
        parts,
        role: String(marks.item["role"] ?? role),
        made: false,
      };
      return;
    }
    if (open?.made === true && open.role === role) {
      open.parts.push(part);
      return;
    }
    const parts: JsonValue[] = [part];
    this.whole({ type: "message", role, content: parts });
    this.#open = { item: {}, parts, role, made: true };
  }
}

function textPart(block: TextBlock, role: Message["role"], fields: JsonObject): JsonObject {
  const kept = objectField(fields, "part");
  if (kept !== undefined) return spreadWith(kept, { text: block.text });
  return role === "assistant"
    ? { type: "output_text", text: block.text, annotations: [] }
    : { type: "input_text", text: block.text };
}

function imagePart(block: ImageBlock, fields: JsonObject): JsonObject {
  // A part read from a Responses input keeps its fields (a `detail` or none); one made
  // elsewhere gets the API's default.
  const kept = objectField(fields, "part");
  const part: JsonObject =
    kept === undefined ? { type: "input_image", detail: "auto" } : { type: "input_image", ...kept };
  const { source } = block;
  if (source.type === "url") part["image_url"] = source.url;
  else if (source.type === "file") part["file_id"] = source.fileId;
  else part["image_url"] = `data:${source.mediaType};base64,${source.data}`;
  return part;
}

function callItem(block: ToolUseBlock, fields: JsonObject): JsonObject {
  const item = objectField(fields, "item") ?? { type: "function_call" };
  if (item["type"] === "custom_tool_call") {
    const input = block.input["input"];
    return spreadWith(item, {
      call_id: block.id,
      name: block.name,
      input: typeof input === "string" ? input : JSON.stringify(block.input),
    });
  }
  return spreadWith(item, {
    call_id: block.id,
    name: block.name,
    arguments: toolArgumentsText(block.input, fields["arguments"]),
  });
}

function outputItem(block: ToolResultBlock, fields: JsonObject): JsonObject {
  const item = objectField(fields, "item") ?? { type: "function_call_output" };
  const { content } = block;
  if (typeof content === "string")
    return spreadWith(item, { call_id: block.toolUseId, output: content });
  const output: JsonValue[] = [];
  for (const part of content) {
    if (part.type === "opaque") {
      // Another API's part (an AI SDK file, a LangChain block) is left out.
      if (sendsToResponses(part)) output.push(withoutBookkeeping(copied(part.block)));
      continue;
    }
    const partFields = fieldsOf(part);
    output.push(
      part.type === "text" ? textPart(part, "user", partFields) : imagePart(part, partFields),
    );
  }
  // Parts all left out: an empty text output, which the API always takes.
  const written = output.length === 0 && content.length > 0 ? "" : output;
  return spreadWith(item, { call_id: block.toolUseId, output: written });
}

function marksOf(fields: JsonObject): {
  item?: JsonObject;
  continues?: boolean;
  content?: JsonValue;
} {
  const item = objectField(fields, "item");
  const marks: { item?: JsonObject; continues?: boolean; content?: JsonValue } = {};
  if (item !== undefined) marks.item = item;
  if (fields["continues"] === true) marks.continues = true;
  if (fields["content"] !== undefined) marks.content = fields["content"];
  return marks;
}

/** One block written by the full writing. */
export function writeBlock(writer: ItemWriter, block: ContentBlock, role: Message["role"]): void {
  const fields = fieldsOf(block);
  switch (block.type) {
    case "text":
      writer.part(textPart(block, role, fields), role, marksOf(fields));
      return;
    case "image":
      // An assistant message takes text and refusals only: another model's image (Gemini's)
      // goes in a user message of its own, where it stood.
      if (role === "assistant") writer.part(imagePart(block, fields), "user", {});
      else writer.part(imagePart(block, fields), role, marksOf(fields));
      return;
    case "tool_use":
      writer.whole(callItem(block, fields));
      return;
    case "tool_result":
      writer.whole(outputItem(block, fields));
      return;
    case "thinking":
    case "redacted_thinking":
      // Anthropic's signed thinking means nothing to the Responses API: it is not sent.
      return;
    case "opaque": {
      // Another API's block (an Anthropic server tool block, a Gemini part, an AI SDK part)
      // is left out: the API refuses an item of a type it does not know.
      if (!sendsToResponses(block)) return;
      const copy = copied(block.block);
      const item = copy[OPAQUE_ITEM_KEY];
      const continues = copy[OPAQUE_CONTINUES_KEY];
      const value = withoutBookkeeping(copy);
      if (typeof value["type"] === "string" && PART_TYPES.has(value["type"])) {
        const marks = {
          ...(isPlainObject(item) ? { item: item as JsonObject } : {}),
          ...(continues === true ? { continues: true } : {}),
        };
        writer.part(value, role, marks);
      } else writer.whole(value);
    }
  }
}

/**
 * Whether a block is a reasoning item the API would refuse: one not followed, in its assistant
 * message, by the item it was produced with (an incomplete response's lone reasoning item).
 */
function isLoneReasoning(message: Message, index: number): boolean {
  const { content } = message;
  if (opaqueType(content[index]) !== "reasoning") return false;
  if (message.role !== "assistant") return true;
  // The block after it as sent: another API's blocks between are left out.
  let next = index + 1;
  while (next < content.length && !sendsToResponses(content[next]!)) next += 1;
  return !isModelItem(content[next]);
}

/**
 * Converts our messages to a Responses API `input`, the inverse of {@link fromResponsesInput}:
 * every kept item comes back verbatim and in place (reasoning with its `encrypted_content`,
 * compaction items, hosted tool calls), parts rejoin their message item. Blocks written
 * elsewhere get the API's plain shapes (a summary as a user `input_text` message, a masked
 * result as its `function_call_output`); Anthropic's thinking blocks are left out, and so is
 * every opaque block another adapter kept that the API cannot read (an Anthropic server tool
 * block, document or compaction block, a Gemini part, an AI SDK part, a LangChain standard
 * block, Chat Completions' reasoning): only the Responses API's own items and parts go out
 * (those `fromResponsesInput` marked, the SDK's item types and the API's `…_call`, `…_output`,
 * `input_…` families; see `isResponsesOpaque`), and a message of nothing else writes no item.
 * A reasoning item is written only when the block sent after it, in its assistant message, is
 * an item the model produced with it (a message item, a call: not a tool output, another
 * reasoning item or a compaction item); a lone one (an incomplete response's, last in its
 * message) is left out, as the API refuses it "without its required following item".
 * `validateConversation` with `provider: "openai"` reports the same blocks
 * (`reasoning_without_following_item`), but for one followed by another API's block, which
 * its rules take for the following item. A call whose id an earlier call had (a provider
 * numbering each reply's calls) goes with its output as `<id>_<n>`, as the API refuses a
 * `call_id` answered twice.
 *
 * @example
 * const response = await client.responses.create({ model, input: toResponsesInput(session.messages) });
 * @throws {ValidationError} naming the field when `messages` are not the library's messages
 * (Responses items go through `fromResponsesInput` first) or two share an id.
 */
export function toResponsesInput(messages: readonly Message[]): ResponseInputItem[] {
  // Cheap for a session's messages: each message object is fully checked only once.
  assertMessages(messages, "messages");
  return writeResponsesInput(withDistinctToolIds(readableMessages(messages)));
}

/** The fields a Responses API system or developer message may hold. */
const SYSTEM_ITEM_KEYS: ReadonlySet<string> = new Set(["type", "role", "content", "id", "status"]);

/**
 * A mid-conversation system message as the Responses API takes it: one in its shape (`system`
 * or `developer`, a string or `input_text` parts) as it was read, a copy; another API's (a Chat
 * Completions or LangChain one of `text` parts, its own fields) as `{ role, content }` of its
 * text, or none when it has no text. It went as it was read, and the API refused its `text`
 * parts.
 */
function systemItem(message: JsonObject): JsonObject | undefined {
  const { role, content, type } = message;
  const own =
    (role === "system" || role === "developer") &&
    (type === undefined || type === "message") &&
    Object.keys(message).every((key) => SYSTEM_ITEM_KEYS.has(key)) &&
    (typeof content === "string" ||
      (Array.isArray(content) &&
        content.length > 0 &&
        content.every((part) => isPlainObject(part) && part["type"] === "input_text")));
  if (own) return copied(message);
  const text = systemText(content);
  return text === ""
    ? undefined
    : { role: role === "developer" ? "developer" : "system", content: text };
}

/**
 * {@link toResponsesInput} of messages checked where they entered (a one-call helper's): a
 * message that `origins` knows unchanged goes as the caller's items it came from (the
 * conversion notes only those it gives back as they were read: {@link sendsAsRead}).
 */
export function writeResponsesInput(
  messages: readonly Message[],
  origins?: ItemOrigins<ResponseInputItem>,
): ResponseInputItem[] {
  const writer = new ItemWriter();
  const items = writer.items as unknown as ResponseInputItem[];
  for (const message of readableMessages(messages)) {
    if (isSystemMessage(message)) {
      const system = systemItem((message.content[0] as SystemMessageBlock).block.message);
      if (system !== undefined) writer.whole(system);
      continue;
    }
    // A new message never continues the last part of the one before.
    writer.close();
    // The conversion noted only the messages it gives back as they were read (`sendsAsRead`).
    if (origins !== undefined && origins.put(message, items, items.length) !== -1) continue;
    if (pushQuickItems(message, writer.items)) continue;
    const { content, role } = message;
    for (let index = 0; index < content.length; index += 1)
      if (!isLoneReasoning(message, index)) writeBlock(writer, content[index]!, role);
  }
  return items;
}

/**
 * Whether the writing sends every block of a message read from Responses items, and every part
 * of its tool results, with no lone reasoning item ({@link isLoneReasoning}): it then gives
 * back the items the message was read from.
 */
export function sendsAsRead(message: Message): boolean {
  if (!sendsWhole(message, sendsToResponses)) return false;
  for (let index = 0; index < message.content.length; index += 1)
    if (isLoneReasoning(message, index)) return false;
  return true;
}
