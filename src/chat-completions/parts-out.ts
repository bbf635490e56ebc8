import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  TextBlock,
  ToolUseBlock,
} from "../core/message.js";
import { isPlainObject, spreadWith, without } from "../internal/plain-object.js";
import { toolArgumentsText } from "../internal/tool-arguments.js";
import {
  type ChatFields,
  copyJson,
  fieldsOf,
  OPAQUE_CONTENT_KEY,
  OPAQUE_MESSAGE_KEY,
  OPAQUE_PART_KEY,
} from "./chat-fields.js";

const OUR_KEYS = [OPAQUE_PART_KEY, OPAQUE_MESSAGE_KEY, OPAQUE_CONTENT_KEY];

/** The content part of a text block: text, or a refusal. */
export function textPart(block: TextBlock, fields: ChatFields): JsonObject {
  const kept = fields.part === undefined ? {} : copyJson(fields.part);
  return fields.refusal === "part"
    ? spreadWith(kept, { type: "refusal", refusal: block.text })
    : spreadWith(kept, { type: "text", text: block.text });
}

/** The content part of an image block: its URL (a `data:` URL for base64 data). */
export function imagePart(block: ImageBlock, fields: ChatFields): JsonObject {
  const { source } = block;
  if (source.type === "file") return { type: "file", file: { file_id: source.fileId } };
  const url = source.type === "url" ? source.url : `data:${source.mediaType};base64,${source.data}`;
  const kept = fields.part === undefined ? {} : copyJson(fields.part);
  const image = isPlainObject(kept["image_url"]) ? (kept["image_url"] as JsonObject) : {};
  return { type: "image_url", ...without(kept, ["image_url"]), image_url: { ...image, url } };
}

/** A part carried whole (audio, a file), without our marks; `undefined` for another's block. */
export function opaquePart(block: ContentBlock): JsonObject | undefined {
  if (block.type !== "opaque" || block.block[OPAQUE_PART_KEY] !== true) return undefined;
  return without(copyJson(block.block), OUR_KEYS);
}

/** Whether a block is a whole message carried in place (the deprecated `function` role). */
export function isCarriedMessage(block: ContentBlock): boolean {
  return block.type === "opaque" && block.block[OPAQUE_PART_KEY] === "message";
}

/** A whole message carried in place (the deprecated `function` role). */
export function carriedMessage(block: ContentBlock): JsonObject | undefined {
  if (!isCarriedMessage(block)) return undefined;
  return without(copyJson((block as OpaqueBlock).block), OUR_KEYS);
}

/** A content part for a text, image or carried block; `undefined` for the rest. */
export function contentPart(block: ContentBlock): JsonObject | undefined {
  if (block.type === "text") return textPart(block, fieldsOf(block));
  if (block.type === "image") return imagePart(block, fieldsOf(block));
  return opaquePart(block);
}

/** A tool use as an entry of `tool_calls` (a custom tool's `{ input }` as its text input). */
export function toolCall(block: ToolUseBlock): JsonObject {
  const fields = fieldsOf(block);
  const call = fields.call === undefined ? { type: "function" } : copyJson(fields.call);
  const own = fields.function === undefined ? {} : copyJson(fields.function);
  if (call["type"] === "custom") {
    const input = block.input["input"];
    const text = typeof input === "string" ? input : JSON.stringify(block.input);
    return spreadWith(call, {
      id: block.id,
      custom: spreadWith(own, { name: block.name, input: text }),
    });
  }
  const text = toolArgumentsText(block.input, fields.arguments);
  return spreadWith(call, {
    id: block.id,
    function: spreadWith(own, { name: block.name, arguments: text }),
  });
}

/** Whether a part is text alone (no field of its own): what a plain string says as well. */
export function isPlainTextPart(part: JsonValue): part is { type: "text"; text: string } {
  return (
    isPlainObject(part) &&
    part["type"] === "text" &&
    typeof part["text"] === "string" &&
    Object.keys(part).length === 2
  );
}
