import { isBookkeepingKey } from "../core/bookkeeping-keys.js";
import type {
  ContentBlock,
  JsonObject,
  JsonValue,
  TextBlock,
  ToolResultBlock,
} from "../core/message.js";
import {
  redactedThinkingBlock,
  textBlock,
  thinkingBlock,
  toolResultBlock,
  toolUseBlock,
} from "../core/message-shapes.js";
import { copyJson } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { HAS_OWN, isPlainObject } from "../internal/plain-object.js";
import { blockFromWire, contentFromWire } from "./blocks.js";

type Record_ = Record<string, unknown>;

/**
 * Reads message params the way `parseWireMessage` then `contentFromWire` do, for the common
 * shapes, straight into our blocks (no JSON copy converted again): it runs on every message a
 * stateless server is sent. One reader per conversion: it keeps the fields of the block at
 * hand in one object of its own rather than making one per block.
 */
export class QuickMessageReader {
  /** The role of the message {@link read} last took. */
  role: "user" | "assistant" = "user";
  readonly #fields = new BlockFields();

  /**
   * The blocks of a user or assistant message of a string or of blocks: a text, thinking,
   * redacted thinking or tool use block of exactly its fields, a tool result of a string or of
   * such text blocks, each read field by field (each field read once); any other block by a
   * JSON copy that the wire checks' quick form vouches for, converted as the full path converts
   * it. `undefined` for anything else (a system message, a field missing or of another type, a
   * key the strict message schema refuses, what the quick copy leaves to `normalizeJson`): the
   * schemas then decide, and name the issues. So it may pass on valid input, never accept what
   * they refuse.
   */
  read(param: unknown): ContentBlock[] | undefined {
    if (!isPlainObject(param)) return undefined;
    for (const key in param)
      if (!HAS_OWN.call(param, key) || (key !== "role" && key !== "content")) return undefined;
    const { role, content } = param;
    if (role !== "user" && role !== "assistant") return undefined;
    if (typeof content === "string") {
      this.role = role;
      return contentFromWire(content);
    }
    if (!Array.isArray(content) || content.length === 0) return undefined;
    const blocks: ContentBlock[] = new Array(content.length);
    for (let index = 0; index < content.length; index += 1) {
      const block = this.#block(content[index]);
      if (block === undefined) return undefined;
      blocks[index] = block;
    }
    this.role = role;
    return blocks;
  }

  /** One block, read field by field when it has a common shape, else by its checked copy. */
  #block(block: unknown): ContentBlock | undefined {
    if (!isPlainObject(block)) return undefined;
    const read = this.#fields.read(block);
    if (read === undefined) return copiedBlock(block);
    const { type } = read;
    if (type === "text" && read.size === 2 && typeof read.text === "string")
      return textBlock(read.text);
    if (type === "tool_use" && read.size === 4) {
      const { id, name, input } = read;
      if (!isNonEmptyString(id) || !isNonEmptyString(name) || !isPlainObject(input))
        return copiedBlock(block);
      const copy = copyJson(input);
      return copy === undefined ? copiedBlock(block) : toolUseBlock(id, name, copy as JsonObject);
    }
    if (type === "tool_result") return quickToolResult(read) ?? copiedBlock(block);
    if (type === "thinking" && read.size === 3) {
      const { thinking, signature } = read;
      if (typeof thinking === "string" && typeof signature === "string")
        return thinkingBlock(thinking, signature);
    }
    if (type === "redacted_thinking" && read.size === 2 && typeof read.data === "string")
      return redactedThinkingBlock(read.data);
    return copiedBlock(block);
  }
}

/**
 * The fields of a block the quick reading models, each read once, and how many the block has.
 * Its values are taken before the next block is read into it.
 */
class BlockFields {
  size = 0;
  type: unknown;
  text: unknown;
  id: unknown;
  name: unknown;
  input: unknown;
  toolUseId: unknown;
  content: unknown;
  isError: unknown;
  thinking: unknown;
  signature: unknown;
  data: unknown;

  /** This, holding `block`'s fields; `undefined` when it has a key of another name, an inherited one, or no `type`. */
  read(block: Record_): this | undefined {
    this.size = 0;
    this.type = this.text = this.id = this.name = this.input = undefined;
    this.toolUseId = this.content = this.isError = undefined;
    this.thinking = this.signature = this.data = undefined;
    for (const key in block) {
      if (!HAS_OWN.call(block, key) || !this.#set(key, block[key])) return undefined;
      this.size += 1;
    }
    return this.type === undefined ? undefined : this;
  }

  /** Sets the field that wire field `key` is, or answers false when it is none. */
  #set(key: string, value: unknown): boolean {
    switch (key) {
      case "type":
        this.type = value;
        return true;
      case "text":
        this.text = value;
        return true;
      case "id":
        this.id = value;
        return true;
      case "name":
        this.name = value;
        return true;
      case "input":
        this.input = value;
        return true;
      case "tool_use_id":
        this.toolUseId = value;
        return true;
      case "content":
        this.content = value;
        return true;
      case "is_error":
        this.isError = value;
        return true;
      case "thinking":
        this.thinking = value;
        return true;
      case "signature":
        this.signature = value;
        return true;
      case "data":
        this.data = value;
        return true;
      default:
        return false;
    }
  }
}

/**
 * A tool result of exactly `type`, `tool_use_id` and, optionally, a non-empty string content
 * or one of plain text blocks and `is_error: true` (the forms the full path keeps in `extra`,
 * `is_error: false` and `content: ""`, are left to it).
 */
function quickToolResult(fields: BlockFields): ToolResultBlock | undefined {
  const { toolUseId, content, isError } = fields;
  if (!isNonEmptyString(toolUseId)) return undefined;
  const expected = 2 + (content === undefined ? 0 : 1) + (isError === undefined ? 0 : 1);
  if (fields.size !== expected || (isError !== undefined && isError !== true)) return undefined;
  if (content === undefined || isNonEmptyString(content))
    return toolResultBlock(toolUseId, content ?? "", isError === true);
  if (!Array.isArray(content)) return undefined;
  const parts: TextBlock[] = new Array(content.length);
  for (let index = 0; index < content.length; index += 1) {
    const part = quickTextPart(content[index]);
    if (part === undefined) return undefined;
    parts[index] = part;
  }
  return toolResultBlock(toolUseId, parts, isError === true);
}

/** A tool result's part `{ type: "text", text }`, as a text block. */
function quickTextPart(part: unknown): TextBlock | undefined {
  if (!isPlainObject(part)) return undefined;
  let text: unknown;
  let size = 0;
  let typed = false;
  for (const key in part) {
    if (!HAS_OWN.call(part, key)) return undefined;
    if (key === "type") typed = part[key] === "text";
    else if (key === "text") text = part[key];
    else return undefined;
    size += 1;
  }
  return typed && size === 2 && typeof text === "string" ? textBlock(text) : undefined;
}

/** A block of another shape: its JSON copy, when the wire checks' quick form vouches for it, converted. */
function copiedBlock(block: Record_): ContentBlock | undefined {
  const copy = copyJson(block);
  return isWireBlock(copy) ? blockFromWire(copy) : undefined;
}

/**
 * Whether a copied block has a type, and the fields its type's wire schema asks for, and no
 * field named as the library's bookkeeping (the schemas refuse it, by name).
 */
function isWireBlock(block: JsonValue | undefined): block is JsonObject {
  if (!isPlainObject(block) || !isNonEmptyString(block["type"])) return false;
  for (const key in block) if (isBookkeepingKey(key)) return false;
  switch (block["type"]) {
    case "text":
      return typeof block["text"] === "string";
    case "image":
      return isPlainObject(block["source"]) && typeof block["source"]["type"] === "string";
    case "thinking":
      return typeof block["thinking"] === "string" && typeof block["signature"] === "string";
    case "redacted_thinking":
      return typeof block["data"] === "string";
    case "tool_use":
      return (
        isNonEmptyString(block["id"]) &&
        isNonEmptyString(block["name"]) &&
        isPlainObject(block["input"])
      );
    case "tool_result":
      return isWireToolResult(block);
    default:
      return true;
  }
}

function isWireToolResult(block: JsonObject): boolean {
  const { content, is_error } = block;
  if (!isNonEmptyString(block["tool_use_id"])) return false;
  if (is_error !== undefined && typeof is_error !== "boolean") return false;
  if (content === undefined || typeof content === "string") return true;
  return Array.isArray(content) && content.every(isWireBlock);
}
