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
import {
  estimateBlockTokens,
  estimateToolUseTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from "../core/tokens.js";
import { checkedJsonObjectLength } from "../internal/json-length.js";
import { copyJson } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { HAS_OWN, isPlainObject } from "../internal/plain-object.js";
import { blockFromWire, contentFromWire } from "./blocks.js";
import { isSendableToolId } from "./tool-ids.js";

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
  /** What `estimateContentTokens` gives for the blocks read (or {@link noted}) last. */
  tokens = 0;
  /** Whether a tool use or result among the blocks read (or noted) last has an id the API refuses (see `sendableToolId`). */
  unsendable = false;
  /** Whether a tool use read (or noted) so far had the id of an earlier one (told only with `toolIds`). */
  reused = false;
  readonly #shareInputs: boolean;
  readonly #toolIds: Set<string> | undefined;
  /** The JSON length of the tool use's input the last block's reading measured, else -1. */
  #inputLength = -1;

  /**
   * `shareInputs`: a tool use's input is checked and kept as it is, not copied (for messages
   * that die with the call: a one-call helper's). `toolIds`: where the ids of the tool uses
   * read go, to tell {@link reused}.
   */
  constructor(shareInputs = false, toolIds?: Set<string>) {
    this.#shareInputs = shareInputs;
    this.#toolIds = toolIds;
  }

  /**
   * Notes blocks read otherwise (by the schemas) as {@link read} notes its own: their estimate,
   * and their tool ids.
   */
  noted(blocks: readonly ContentBlock[]): void {
    this.tokens = MESSAGE_OVERHEAD_TOKENS;
    this.unsendable = false;
    this.#inputLength = -1;
    for (let index = 0; index < blocks.length; index += 1) this.#note(blocks[index]!);
    this.#noteToolIds(blocks);
  }

  /** Adds the ids of the tool uses of a message read to the conversation's, telling {@link reused}. */
  #noteToolIds(blocks: readonly ContentBlock[]): void {
    const ids = this.#toolIds;
    if (ids === undefined) return;
    for (let index = 0; index < blocks.length; index += 1) {
      const block = blocks[index]!;
      if (block.type !== "tool_use") continue;
      // One lookup: the set grows unless the id was in it.
      const size = ids.size;
      if (ids.add(block.id).size === size) this.reused = true;
    }
  }

  /** Adds `block`'s estimate to {@link tokens}, and notes its tool id. */
  #note(block: ContentBlock): void {
    let id = "";
    if (block.type === "tool_use") {
      id = block.id;
      // Measured as it was checked: the estimate does not walk the input again.
      this.tokens +=
        this.#inputLength >= 0
          ? estimateToolUseTokens(id, block.name, this.#inputLength)
          : estimateBlockTokens(block);
    } else {
      this.tokens += estimateBlockTokens(block);
      if (block.type === "tool_result") id = block.toolUseId;
    }
    if (id !== "" && !this.unsendable && !isSendableToolId(id)) this.unsendable = true;
  }

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
      const blocks = contentFromWire(content);
      this.noted(blocks);
      return blocks;
    }
    if (!Array.isArray(content) || content.length === 0) return undefined;
    const blocks: ContentBlock[] = new Array(content.length);
    this.tokens = MESSAGE_OVERHEAD_TOKENS;
    this.unsendable = false;
    for (let index = 0; index < content.length; index += 1) {
      this.#inputLength = -1;
      const block = this.#block(content[index]);
      if (block === undefined) return undefined;
      this.#note(block);
      blocks[index] = block;
    }
    this.#noteToolIds(blocks);
    this.role = role;
    return blocks;
  }

  /** One block, read field by field when it has a common shape, else by its checked copy. */
  #block(block: unknown): ContentBlock | undefined {
    if (!isPlainObject(block)) return undefined;
    const fields = fieldsOf(block);
    // Each field read below is among its own enumerable ones (`fields`), read once.
    switch (fields) {
      case TEXT: {
        const text = block["text"];
        if (typeof text === "string") return textBlock(text);
        break;
      }
      case TOOL_USE:
        return this.#toolUse(block);
      case THINKING: {
        const thinking = block["thinking"];
        if (typeof thinking !== "string") break;
        const signature = block["signature"];
        if (typeof signature === "string") return thinkingBlock(thinking, signature);
        break;
      }
      case REDACTED_THINKING: {
        const data = block["data"];
        if (typeof data === "string") return redactedThinkingBlock(data);
        break;
      }
      default:
        if ((fields & ~RESULT_FIELDS) === 0 && (fields & RESULT) === RESULT)
          return quickToolResult(block, fields) ?? copiedBlock(block);
    }
    return copiedBlock(block);
  }

  /** A tool use of exactly its four fields, `block`: its input kept (see `shareInputs`) or copied. */
  #toolUse(block: Record_): ContentBlock | undefined {
    const id = block["id"];
    if (!isNonEmptyString(id)) return copiedBlock(block);
    const name = block["name"];
    if (!isNonEmptyString(name)) return copiedBlock(block);
    const input = block["input"];
    if (this.#shareInputs) {
      // Checked (a plain object of JSON values) and measured by one walk, and kept as it is:
      // the messages die with the call.
      const length = checkedJsonObjectLength(input);
      if (length < 0) return copiedBlock(block);
      this.#inputLength = length;
      return toolUseBlock(id, name, input as JsonObject);
    }
    if (!isPlainObject(input)) return copiedBlock(block);
    const copy = copyJson(input);
    return copy === undefined ? copiedBlock(block) : toolUseBlock(id, name, copy as JsonObject);
  }
}

/*
 * A block's fields as bits, one per field the quick reading models, and the sets of its shapes
 * (`type` and each modelled field). A shape is known by its fields before any value is read.
 */
const TYPE = 1;
const TEXT_FIELD = 2;
const ID = 4;
const NAME = 8;
const INPUT = 16;
const TOOL_USE_ID = 32;
const CONTENT = 64;
const IS_ERROR = 128;
const THINKING_FIELD = 256;
const SIGNATURE = 512;
const DATA = 1024;
/** A field of another name, or one inherited: the block goes to its checked copy. */
const OTHER = 2048;
const TEXT = TYPE | TEXT_FIELD;
const TOOL_USE = TYPE | ID | NAME | INPUT;
const THINKING = TYPE | THINKING_FIELD | SIGNATURE;
const REDACTED_THINKING = TYPE | DATA;
const RESULT = TYPE | TOOL_USE_ID;
const RESULT_FIELDS = RESULT | CONTENT | IS_ERROR;

/**
 * The fields of `block` (its enumerable ones, as the schemas' copy takes them), as bits; with
 * {@link OTHER} for one the quick reading does not model or one not its own. Only the type's
 * value tells the shape: a text block of type "text" and its text, and so on.
 */
function fieldsOf(block: Record_): number {
  let fields = 0;
  for (const key in block) {
    if (!HAS_OWN.call(block, key)) return OTHER;
    fields |= fieldBit(key);
  }
  if ((fields & TYPE) === 0) return OTHER;
  const type = block["type"];
  const shape =
    type === "text"
      ? TEXT
      : type === "tool_use"
        ? TOOL_USE
        : type === "thinking"
          ? THINKING
          : type === "redacted_thinking"
            ? REDACTED_THINKING
            : type === "tool_result"
              ? RESULT_FIELDS
              : 0;
  // Fields of another shape than its type's are the checked copy's to judge.
  return (fields & ~shape) === 0 ? fields : OTHER;
}

/** The bit of wire field `key` (see {@link fieldsOf}). */
function fieldBit(key: string): number {
  switch (key) {
    case "type":
      return TYPE;
    case "text":
      return TEXT_FIELD;
    case "id":
      return ID;
    case "name":
      return NAME;
    case "input":
      return INPUT;
    case "tool_use_id":
      return TOOL_USE_ID;
    case "content":
      return CONTENT;
    case "is_error":
      return IS_ERROR;
    case "thinking":
      return THINKING_FIELD;
    case "signature":
      return SIGNATURE;
    case "data":
      return DATA;
    default:
      return OTHER;
  }
}

/**
 * A tool result of exactly `type`, `tool_use_id` and, optionally, a non-empty string content
 * or one of plain text blocks and `is_error: true` (the forms the full path keeps in `extra`,
 * `is_error: false` and `content: ""`, are left to it).
 */
function quickToolResult(block: Record_, fields: number): ToolResultBlock | undefined {
  const toolUseId = block["tool_use_id"];
  if (!isNonEmptyString(toolUseId)) return undefined;
  // A field given as `undefined` is the schemas' to judge.
  const content = (fields & CONTENT) === 0 ? undefined : block["content"];
  if (content === undefined && (fields & CONTENT) !== 0) return undefined;
  const isError = (fields & IS_ERROR) === 0 ? undefined : block["is_error"];
  if ((fields & IS_ERROR) !== 0 && isError !== true) return undefined;
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
