import {
  BOOKKEEPING_FIELD_MESSAGE,
  BOOKKEEPING_KEYS,
  isBookkeepingKey,
} from "../core/bookkeeping-keys.js";
import type { ValidationIssue } from "../core/errors.js";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  OpaqueBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from "../core/message.js";
import { copyJson, isJsonObject, jsonValueIssues, normalizeJson } from "../internal/json-value.js";
import { isPlainObject, without } from "../internal/plain-object.js";
import { parseToolArguments } from "../internal/tool-arguments.js";

/**
 * The key, in a block's `extra`, under which the Responses API fields our blocks do not model
 * are kept verbatim: `item` (the item's own fields, on its first block), `part` (a content
 * part's), `continues` (a later part of the same item), `content` (`"string"` or `"empty"`).
 */
export const OPENAI_KEY = BOOKKEEPING_KEYS.openai;
/** The keys an opaque block (a whole item, or a part) carries the same marks under. */
export const OPAQUE_ITEM_KEY = `${OPENAI_KEY}:item`;
export const OPAQUE_CONTINUES_KEY = `${OPENAI_KEY}:continues`;

type Path = (string | number)[];
type Record_ = Record<string, unknown>;

/** Where problems are collected, and the path of the item being read. */
export interface ItemContext {
  issues: ValidationIssue[];
  path: Path;
}

/** Content part types of message items (the rest of an item's blocks are whole items). */
export const PART_TYPES = new Set([
  "input_text",
  "input_image",
  "input_file",
  "input_audio",
  "output_text",
  "refusal",
]);

function fail(context: ItemContext, field: string, message: string): void {
  context.issues.push({ path: [...context.path, field], message });
}

function stringField(context: ItemContext, value: Record_, field: string, empty = true): string {
  const found = value[field];
  if (typeof found === "string" && (empty || found !== "")) return found;
  fail(context, field, empty ? "must be a string" : "must be a non-empty string");
  return "";
}

/**
 * A deep copy of `value` when it is JSON (the caller's objects stay theirs), reporting what is
 * not (each issue under `path`; `value` itself is returned then, to be thrown away).
 */
export function checkedJson(context: ItemContext, value: Record_): JsonObject {
  // A caller's field named as the adapters' marks would be read as one: refused, named.
  for (const key in value)
    if (Object.hasOwn(value, key) && isBookkeepingKey(key))
      fail(context, key, BOOKKEEPING_FIELD_MESSAGE);
  // The common case by the quick copy, which builds no paths; the issues by the walk naming them.
  const copy = copyJson(value);
  if (copy !== undefined) return copy as JsonObject;
  if (isJsonObject(value)) return normalizeJson(value, [], []) as JsonObject;
  for (const issue of jsonValueIssues(value))
    context.issues.push({ path: [...context.path, ...issue.path], message: issue.message });
  return value as JsonObject;
}

function withFields<B extends object>(block: B, fields: JsonObject): B {
  // The block was just made for this: set in place (a spread of blocks of every shape is slow).
  for (const _key in fields) {
    (block as { extra?: JsonObject }).extra = { [OPENAI_KEY]: fields };
    return block;
  }
  return block;
}

/** A block carried whole, marked as the first (`item`) or a later part of an item. */
export function opaque(value: JsonObject, marks: JsonObject = {}): OpaqueBlock {
  const block = { ...value };
  if (marks["item"] !== undefined) block[OPAQUE_ITEM_KEY] = marks["item"];
  if (marks["continues"] === true) block[OPAQUE_CONTINUES_KEY] = true;
  return { type: "opaque", block };
}

/**
 * An `input_image` part as an image block, its source the `image_url` (or else the `file_id`);
 * the part's other fields, the unused one of the two among them, kept as `part`. `part` is
 * kept even when empty: it tells the writer the part was read, so it adds no `detail` the
 * part did not have (a part made from another provider's image gets `detail: "auto"`).
 */
function imageOf(context: ItemContext, part: Record_, marks: JsonObject): ContentBlock {
  const url = part["image_url"];
  const fileId = part["file_id"];
  let source: ImageBlock["source"] | undefined;
  let sourceKey: string;
  if (typeof url === "string" && url !== "") {
    source = { type: "url", url };
    sourceKey = "image_url";
  } else if (typeof fileId === "string" && fileId !== "") {
    source = { type: "file", fileId };
    sourceKey = "file_id";
  } else return opaque(checkedJson(context, part), marks);
  const fields: JsonObject = { ...marks };
  fields["part"] = checkedJson(context, without(part, ["type", sourceKey]));
  return withFields({ type: "image", source }, fields);
}

/** One content part of a message or tool output item; `marks` tie it to its item. */
export function partBlock(context: ItemContext, part: unknown, marks: JsonObject): ContentBlock {
  if (!isPlainObject(part) || typeof part["type"] !== "string" || !PART_TYPES.has(part["type"])) {
    context.issues.push({
      path: [...context.path, "type"],
      message: `must be a content part (${[...PART_TYPES].join(", ")})`,
    });
    return opaque({});
  }
  if (part["type"] === "input_text" || part["type"] === "output_text") {
    const text = stringField(context, part, "text");
    const rest = without(part, ["text"]);
    const fields: JsonObject = { ...marks };
    if (part["type"] === "output_text" || Object.keys(rest).length > 1)
      fields["part"] = checkedJson(context, rest);
    return withFields({ type: "text", text }, fields);
  }
  if (part["type"] === "input_image") return imageOf(context, part, marks);
  return opaque(checkedJson(context, part), marks);
}

/** The blocks of a message item: its parts, the first holding the item's own fields. */
export function messageBlocks(context: ItemContext, item: Record_): ContentBlock[] {
  const itemFields = checkedJson(context, without(item, ["content"]));
  const { content } = item;
  if (typeof content === "string") {
    return [withFields({ type: "text", text: content }, { item: itemFields, content: "string" })];
  }
  if (!Array.isArray(content)) {
    fail(context, "content", "must be a string or an array of content parts");
    return [];
  }
  if (content.length === 0) {
    return [withFields({ type: "text", text: "" }, { item: itemFields, content: "empty" })];
  }
  // A loop, not map: map skips a hole, which is then refused by name here.
  const blocks: ContentBlock[] = new Array(content.length);
  for (let index = 0; index < content.length; index += 1)
    blocks[index] = partBlock(
      { issues: context.issues, path: [...context.path, "content", index] },
      content[index],
      index === 0 ? { item: itemFields } : { continues: true },
    );
  return blocks;
}

/** A `function_call` or `custom_tool_call` item as a tool use. */
export function callBlock(context: ItemContext, item: Record_): ToolUseBlock {
  const id = stringField(context, item, "call_id", false);
  const name = stringField(context, item, "name", false);
  const custom = item["type"] === "custom_tool_call";
  const raw = stringField(context, item, custom ? "input" : "arguments");
  const fields: JsonObject = {
    item: checkedJson(context, without(item, ["call_id", "name", "arguments", "input"])),
  };
  if (custom) return withFields({ type: "tool_use", id, name, input: { input: raw } }, fields);
  const { input, keep } = parseToolArguments(raw);
  if (keep) fields["arguments"] = raw;
  return withFields({ type: "tool_use", id, name, input }, fields);
}

/** A `function_call_output` or `custom_tool_call_output` item as a tool result. */
export function outputBlock(context: ItemContext, item: Record_): ToolResultBlock {
  const toolUseId = stringField(context, item, "call_id", false);
  const fields: JsonObject = {
    item: checkedJson(context, without(item, ["call_id", "output"])),
  };
  const { output } = item;
  let content: ToolResultBlock["content"];
  if (typeof output === "string") content = output;
  else if (Array.isArray(output)) {
    const parts: ToolResultContentBlock[] = new Array(output.length);
    for (let index = 0; index < output.length; index += 1)
      parts[index] = partBlock(
        { issues: context.issues, path: [...context.path, "output", index] },
        output[index],
        {},
      ) as ToolResultContentBlock;
    content = parts;
    if (output.length === 0) fields["content"] = "empty";
  } else {
    fail(context, "output", "must be a string or an array of content parts");
    content = "";
  }
  return withFields({ type: "tool_result", toolUseId, content, isError: false }, fields);
}
