import type {
  ContentBlock as AnthropicContentBlock,
  ContentBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import {
  BOOKKEEPING_KEYS,
  isBookkeepingKey,
  withoutBookkeeping,
} from "../core/bookkeeping-keys.js";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import type {
  ContentBlock,
  ImageSource,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from "../core/message.js";
import { imageFromWire, rest, resultPartFromWire, withExtra } from "../core/wire-result-parts.js";
import { setProperty } from "../internal/json-value.js";
import { sendsToAnthropic } from "./foreign-blocks.js";
import { sendableToolId } from "./tool-ids.js";
import { BlocksWireSchema, parseWireBlocks } from "./wire-schemas.js";

/**
 * The key, in a text block's `extra`, that remembers the block came from a message whose
 * content was a plain string (`content: "hi"`). `toAnthropicMessages` turns such a message
 * back into a string and never sends the key.
 */
export const STRING_CONTENT_KEY = `${BOOKKEEPING_KEYS.library}:stringContent` as const;

/** A block as the SDK takes it in a request or gives it in a response. */
export type AnthropicBlock = ContentBlockParam | AnthropicContentBlock;

/** Blocks whose modelled fields have the same names on the wire as in ours. */
type SameNamedBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

/**
 * The wire fields each modelled block type maps to fields of ours (`type` besides); the rest go
 * in `extra`, and on the way out modelled fields win over a stray copy in `extra`.
 */
const MODELLED_WIRE_FIELDS = {
  text: ["text"],
  image: ["source"],
  thinking: ["thinking", "signature"],
  redacted_thinking: ["data"],
  tool_use: ["id", "name", "input"],
  tool_result: ["tool_use_id", "content", "is_error"],
} as const satisfies Record<Exclude<ContentBlock["type"], "opaque">, readonly string[]>;

function opaque(block: JsonObject): OpaqueBlock {
  return { type: "opaque", block };
}

function imageSourceToWire(source: ImageSource): JsonObject {
  switch (source.type) {
    case "base64":
      return { type: "base64", media_type: source.mediaType, data: source.data };
    case "url":
      return { type: "url", url: source.url };
    case "file":
      return { type: "file", file_id: source.fileId };
  }
}

/** A checked wire block of a same-named type, as ours: the wire checks vouch for the fields. */
function sameNamedFromWire<T extends SameNamedBlock["type"]>(
  type: T,
  block: JsonObject,
): Extract<SameNamedBlock, { type: T }> {
  const fields = MODELLED_WIRE_FIELDS[type];
  const ours: JsonObject = { type };
  for (const field of fields) ours[field] = block[field] as JsonValue;
  return withExtra(ours, rest(block, fields)) as unknown as Extract<SameNamedBlock, { type: T }>;
}

function toolResultFromWire(block: JsonObject): ToolResultBlock {
  const extra = rest(block, MODELLED_WIRE_FIELDS.tool_result);
  // Wire forms our model cannot tell from its defaults are kept as they were sent:
  // `is_error: false` (vs absent) and `content: ""` (vs absent).
  if (block["is_error"] === false) extra["is_error"] = false;
  if (block["content"] === "") extra["content"] = "";
  const content = block["content"];
  return withExtra(
    {
      type: "tool_result",
      toolUseId: block["tool_use_id"] as string,
      content:
        content === undefined
          ? ""
          : typeof content === "string"
            ? content
            : (content as JsonObject[]).map(resultPartFromWire),
      isError: block["is_error"] === true,
    },
    extra,
  );
}

/** Converts one checked, normalized wire block. */
export function blockFromWire(block: JsonObject): ContentBlock {
  switch (block["type"]) {
    case "text":
    case "thinking":
    case "redacted_thinking":
    case "tool_use":
      return sameNamedFromWire(block["type"], block);
    case "image":
      return imageFromWire(block);
    case "tool_result":
      return toolResultFromWire(block);
    default:
      return opaque(block);
  }
}

/**
 * Converts content that passed the wire checks (`parseWireMessage`, `parseWireBlocks`) to
 * ours; string content becomes one text block that remembers it was a string.
 */
export function contentFromWire(content: string | readonly JsonObject[]): ContentBlock[] {
  if (typeof content === "string") {
    return [{ type: "text", text: content, extra: { [STRING_CONTENT_KEY]: true } }];
  }
  return content.map(blockFromWire);
}

/** Whether blocks are one text block that came from string content (sent back as a string). */
export function isStringContent(blocks: readonly ContentBlock[]): blocks is [TextBlock] {
  const only = blocks[0];
  if (blocks.length !== 1 || only?.type !== "text" || only.extra === undefined) return false;
  let keys = 0;
  for (const key in only.extra) if (Object.hasOwn(only.extra, key)) keys += 1;
  return keys === 1 && only.extra[STRING_CONTENT_KEY] === true;
}

/**
 * The wire fields `extra` adds: all but the modelled ones, `type` and the library's
 * bookkeeping (our own marker, the other adapters' fields: see `isBookkeepingKey`), set on
 * `out` (a wire block being built: not a spread, which is slow in Node 20 beside fields of its own).
 */
function extraToWire(
  out: JsonObject,
  extra: JsonObject | undefined,
  modelled: readonly string[],
): JsonObject {
  if (extra === undefined) return out;
  for (const key in extra) {
    if (
      Object.hasOwn(extra, key) &&
      key !== "type" &&
      !isBookkeepingKey(key) &&
      !modelled.includes(key)
    )
      setProperty(out, key, extra[key] as JsonValue);
  }
  return out;
}

function sameNamedToWire(block: SameNamedBlock): JsonObject {
  if (block.extra === undefined) return plainToWire(block);
  const fields = MODELLED_WIRE_FIELDS[block.type];
  const out = extraToWire({ type: block.type }, block.extra, fields);
  const ours = block as unknown as JsonObject;
  for (const field of fields) out[field] = ours[field] as JsonValue;
  if (block.type === "tool_use") out["id"] = sendableToolId(block.id);
  return out;
}

/**
 * The wire blocks of every request, each built whole from a shape, in the order the general
 * path sets the fields (`type`, then the modelled ones): a spread, not an object literal with
 * fields, which V8 would make in the old generation once its objects outlive a young
 * collection (see `core/message-shapes.ts`). Placeholders are never sent: each is set.
 */
const WIRE = {
  text: { type: "text", text: "" },
  thinking: { type: "thinking", thinking: "", signature: "" },
  redacted_thinking: { type: "redacted_thinking", data: "" },
  tool_use: { type: "tool_use", id: "", name: "", input: undefined },
  result: { type: "tool_result", tool_use_id: "" },
  resultOfContent: { type: "tool_result", tool_use_id: "", content: "" },
} as const;

/** A block without `extra` as sent, built whole (see {@link WIRE}). */
function plainToWire(block: SameNamedBlock): JsonObject {
  switch (block.type) {
    case "text":
      return { ...WIRE.text, text: block.text };
    case "thinking":
      return { ...WIRE.thinking, thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { ...WIRE.redacted_thinking, data: block.data };
    case "tool_use":
      return {
        ...WIRE.tool_use,
        id: sendableToolId(block.id),
        name: block.name,
        input: block.input,
      };
  }
}

/** A tool result without `extra` and of string content as sent, built whole (see {@link WIRE}). */
function plainToolResultToWire(block: ToolResultBlock, content: string): JsonObject {
  const out: JsonObject =
    content === ""
      ? { ...WIRE.result, tool_use_id: sendableToolId(block.toolUseId) }
      : { ...WIRE.resultOfContent, tool_use_id: sendableToolId(block.toolUseId), content };
  if (block.isError) out["is_error"] = true;
  return out;
}

function partToWire(part: ToolResultContentBlock): JsonObject {
  switch (part.type) {
    case "text":
      return sameNamedToWire(part);
    case "image": {
      const out = extraToWire({ type: "image" }, part.extra, MODELLED_WIRE_FIELDS.image);
      out["source"] = imageSourceToWire(part.source);
      return out;
    }
    case "opaque":
      return withoutBookkeeping(part.block);
  }
}

function toolResultToWire(block: ToolResultBlock): JsonObject {
  if (block.extra === undefined && typeof block.content === "string")
    return plainToolResultToWire(block, block.content);
  const out = extraToWire({ type: "tool_result" }, block.extra, MODELLED_WIRE_FIELDS.tool_result);
  out["tool_use_id"] = sendableToolId(block.toolUseId);
  if (typeof block.content !== "string") {
    // Another API's parts are left out; none left, the result goes without content.
    const parts = block.content.filter(sendsToAnthropic);
    if (parts.length > 0 || block.content.length === 0) out["content"] = parts.map(partToWire);
  } else if (block.content !== "") {
    out["content"] = block.content;
  } else if (block.extra?.["content"] === "") {
    out["content"] = "";
  }
  if (block.isError) out["is_error"] = true;
  else if (block.extra?.["is_error"] === false) out["is_error"] = false;
  return out;
}

/** Converts one of our blocks to the wire; our own fields (`compactSummary`) stay behind. */
function blockToWire(block: ContentBlock): JsonObject {
  switch (block.type) {
    case "image":
    case "opaque":
      return partToWire(block);
    case "text":
    case "thinking":
    case "redacted_thinking":
    case "tool_use":
      return sameNamedToWire(block);
    case "tool_result":
      return toolResultToWire(block);
  }
}

/**
 * Converts content blocks as the SDK takes or gives them (a request's `ContentBlockParam`s,
 * a response's `ContentBlock`s, or a plain string) to ours, losslessly: fields we do not
 * model go in `extra`, blocks we do not model are carried as `OpaqueBlock`.
 *
 * @example
 * const blocks = fromAnthropicContent(response.content);
 * @throws {ValidationError} naming the path of each malformed block.
 */
export function fromAnthropicContent(
  content: string | readonly AnthropicBlock[] | readonly unknown[],
): ContentBlock[] {
  if (typeof content === "string") return contentFromWire(content);
  const array = parseOrThrow(BlocksWireSchema, content, "Anthropic content");
  const issues: ValidationIssue[] = [];
  const blocks = parseWireBlocks(array, [], issues);
  if (blocks === undefined) throw new ValidationError("Anthropic content", issues);
  return contentFromWire(blocks);
}

/**
 * Converts our blocks to the SDK's `ContentBlockParam`s, dropping our own fields and the
 * blocks the Messages API cannot read (another API's opaque blocks: see `sendsToAnthropic`).
 */
export function toAnthropicContent(blocks: readonly ContentBlock[]): ContentBlockParam[] {
  // A loop rather than `map` with a closure: this runs on every message of every request.
  const out: ContentBlockParam[] = new Array(blocks.length);
  let count = 0;
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index]!;
    if (block.type === "opaque" && !sendsToAnthropic(block)) continue;
    out[count++] = blockToWire(block) as unknown as ContentBlockParam;
  }
  if (count < out.length) out.length = count;
  return out;
}
