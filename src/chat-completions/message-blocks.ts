import type { ValidationIssue } from "../core/errors.js";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from "../core/message.js";
import { isPlainObject, spreadWith, without } from "../internal/plain-object.js";
import { parseToolArguments } from "../internal/tool-arguments.js";
import {
  CHAT_REASONING_BLOCK_TYPE,
  type ChatFields,
  OPAQUE_CONTENT_KEY,
  OPAQUE_MESSAGE_KEY,
  OPAQUE_PART_KEY,
  REASONING_FIELDS,
  withFields,
} from "./chat-fields.js";

type Path = (string | number)[];

/** Where problems are collected, and the path of the message being read. */
export interface MessageContext {
  issues: ValidationIssue[];
  path: Path;
}

function fail(context: MessageContext, path: Path, message: string): void {
  context.issues.push({ path: [...context.path, ...path], message });
}

function stringAt(context: MessageContext, value: JsonObject, field: string, path: Path): string {
  const found = value[field];
  if (typeof found === "string" && found !== "") return found;
  fail(context, [...path, field], "must be a non-empty string");
  return "";
}

/** The parts of a `data:` URL in the one form an image block holds (`data:<type>;base64,<data>`). */
function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith("data:")) return undefined;
  const marker = url.indexOf(";base64,");
  if (marker === -1) return undefined;
  const mediaType = url.slice(5, marker);
  if (mediaType === "" || mediaType.includes(",") || mediaType.includes(";")) return undefined;
  return { mediaType, data: url.slice(marker + 8) };
}

/** A content part carried whole. */
function opaquePart(part: JsonObject): OpaqueBlock {
  return { type: "opaque", block: spreadWith(part, { [OPAQUE_PART_KEY]: true }) };
}

/**
 * An `image_url` part as an image (one with an empty URL whole). Its `image_url` must be an
 * object of a string `url` (the API's `ImageURL`): anything else is reported.
 */
function imagePart(context: MessageContext, part: JsonObject, path: Path): ContentBlock {
  const image = part["image_url"];
  if (!isPlainObject(image)) {
    fail(context, [...path, "image_url"], "must be an object with a string url");
    return opaquePart(part);
  }
  const url = image["url"];
  if (typeof url !== "string") {
    fail(context, [...path, "image_url", "url"], "must be a string");
    return opaquePart(part);
  }
  if (url === "") return opaquePart(part);
  const parsed = dataUrl(url);
  const source: ImageBlock["source"] =
    parsed === undefined ? { type: "url", url } : { type: "base64", ...parsed };
  const rest = { ...without(part, ["type"]), image_url: without(image as JsonObject, ["url"]) };
  return withFields({ type: "image", source }, { part: rest });
}

/** One content part: text (or a refusal) as text, an image by URL as an image, the rest whole. */
export function partBlock(context: MessageContext, part: JsonValue, path: Path): ContentBlock {
  if (!isPlainObject(part) || typeof part["type"] !== "string") {
    fail(context, path, "must be a content part (an object with a type)");
    return opaquePart({});
  }
  const fields: ChatFields = {};
  if (part["type"] === "text" || part["type"] === "refusal") {
    const key = part["type"];
    const text = part[key];
    if (typeof text !== "string") fail(context, [...path, key], "must be a string");
    const rest = without(part, ["type", key]);
    if (Object.keys(rest).length > 0) fields.part = rest;
    if (key === "refusal") fields.refusal = "part";
    return withFields({ type: "text", text: typeof text === "string" ? text : "" }, fields);
  }
  if (part["type"] === "image_url") return imagePart(context, part, path);
  return opaquePart(part);
}

/** How a message's content was written: a string, parts, `null`, absent, or `[]`. */
export type ContentForm = "string" | "parts" | "null" | "absent" | "empty";

/** The blocks of a message's `content`: a string, parts, or nothing (`null`, absent). */
export function contentBlocks(
  context: MessageContext,
  content: JsonValue | undefined,
): { blocks: ContentBlock[]; form: ContentForm | undefined } {
  if (typeof content === "string") {
    return { blocks: [{ type: "text", text: content }], form: "string" };
  }
  if (content === null) return { blocks: [], form: "null" };
  if (content === undefined) return { blocks: [], form: "absent" };
  if (!Array.isArray(content)) {
    fail(context, ["content"], "must be a string or an array of content parts");
    return { blocks: [], form: undefined };
  }
  const blocks = content.map((part, index) => partBlock(context, part, ["content", index]));
  return { blocks, form: blocks.length === 0 ? "empty" : "parts" };
}

/**
 * Reports what a `system` or `developer` message's `content` holds that the API refuses there:
 * it is a string or an array of text parts (`{ type: "text", text }`), nothing else.
 */
export function checkTextContent(context: MessageContext, content: JsonValue | undefined): void {
  if (typeof content === "string") return;
  if (!Array.isArray(content)) {
    fail(context, ["content"], "must be a string or an array of text parts");
    return;
  }
  for (let index = 0; index < content.length; index += 1) {
    const part = content[index];
    if (!isPlainObject(part)) fail(context, ["content", index], "must be a text part (an object)");
    else if (part["type"] !== "text") fail(context, ["content", index, "type"], 'must be "text"');
    else if (typeof part["text"] !== "string")
      fail(context, ["content", index, "text"], "must be a string");
  }
}

/**
 * Puts the message's own fields and its content's form on its first block; a message that
 * gave no block gets an empty text block to hold them.
 */
export function withMessageFields(
  blocks: ContentBlock[],
  message: JsonObject,
  form: JsonValue | undefined,
): ContentBlock[] {
  const fields: ChatFields = {
    ...(Object.keys(message).length > 0 ? { message } : {}),
    ...(form === undefined ? {} : { content: form }),
  };
  if (Object.keys(fields).length === 0) return blocks;
  const first = blocks[0] ?? { type: "text", text: "" };
  const rest = blocks.slice(1);
  if (first.type === "opaque") {
    const block: JsonObject = { ...first.block };
    if (fields.message !== undefined) block[OPAQUE_MESSAGE_KEY] = fields.message;
    if (fields.content !== undefined) block[OPAQUE_CONTENT_KEY] = fields.content;
    return [{ type: "opaque", block }, ...rest];
  }
  return [withFields(first, { ...fieldsOfPlain(first), ...fields }), ...rest];
}

function fieldsOfPlain(block: Exclude<ContentBlock, OpaqueBlock>): ChatFields {
  const kept = block.extra?.["chatCompletions"];
  return isPlainObject(kept) ? (kept as ChatFields) : {};
}

/** An entry of `tool_calls` as a tool use (a custom tool's text input as `{ input }`). */
export function callBlock(context: MessageContext, call: JsonValue, path: Path): ToolUseBlock {
  if (!isPlainObject(call)) {
    fail(context, path, "must be a tool call object");
    return { type: "tool_use", id: "", name: "", input: {} };
  }
  const id = stringAt(context, call, "id", path);
  const type = call["type"];
  // Hosts that leave the type out (null, "") mean a function call: written back as one.
  const untyped = type === undefined || type === null || type === "";
  if (!untyped && type !== "function" && type !== "custom")
    fail(context, [...path, "type"], 'must be "function" or "custom"');
  const custom = type === "custom";
  const key = custom ? "custom" : "function";
  const target = call[key];
  if (!isPlainObject(target)) {
    fail(context, [...path, key], "must be an object");
    return { type: "tool_use", id, name: "", input: {} };
  }
  const name = stringAt(context, target, "name", [...path, key]);
  const rawKey = custom ? "input" : "arguments";
  const raw = target[rawKey];
  if (typeof raw !== "string") fail(context, [...path, key, rawKey], "must be a string");
  const text = typeof raw === "string" ? raw : "";
  const fields: ChatFields = {
    call: untyped
      ? { ...without(call, ["id", key, "type"]), type: "function" }
      : without(call, ["id", key]),
  };
  const own = without(target, ["name", rawKey]);
  if (Object.keys(own).length > 0) fields.function = own;
  if (custom) return withFields({ type: "tool_use", id, name, input: { input: text } }, fields);
  const { input, keep } = parseToolArguments(text);
  if (keep) fields.arguments = text;
  if (Object.keys(fields.call ?? {}).length === 1 && fields.call?.["type"] === "function")
    delete fields.call;
  return withFields({ type: "tool_use", id, name, input }, fields);
}

/** The reasoning fields of an assistant message (those not null), as one opaque block. */
export function reasoningBlock(message: JsonObject): OpaqueBlock | undefined {
  const block: JsonObject = { type: CHAT_REASONING_BLOCK_TYPE };
  let found = false;
  for (const key of REASONING_FIELDS) {
    const value = message[key];
    if (value === undefined || value === null) continue;
    block[key] = value;
    found = true;
  }
  return found ? { type: "opaque", block } : undefined;
}

/** A `role: "tool"` message as a tool result (its text parts as text blocks). */
export function toolResultBlock(context: MessageContext, message: JsonObject): ToolResultBlock {
  const toolUseId = stringAt(context, message, "tool_call_id", []);
  const { content } = message;
  let blocks: ToolResultBlock["content"] = "";
  if (typeof content === "string") blocks = content;
  else if (Array.isArray(content)) {
    blocks = content.map(
      (part, index) => partBlock(context, part, ["content", index]) as ToolResultContentBlock,
    );
  } else fail(context, ["content"], "must be a string or an array of text parts");
  const own = without(message, ["role", "tool_call_id", "content"]);
  return withFields(
    { type: "tool_result", toolUseId, content: blocks, isError: false },
    Object.keys(own).length > 0 ? { message: own } : {},
  );
}
