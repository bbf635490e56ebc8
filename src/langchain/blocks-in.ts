import { BOOKKEEPING_FIELD_MESSAGE } from "../core/bookkeeping-keys.js";
import type { ValidationIssue } from "../core/errors.js";
import type {
  ContentBlock,
  ImageBlock,
  ImageSource,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  ToolResultContentBlock,
} from "../core/message.js";
import { keyed, textBlock } from "../core/message-shapes.js";
import { bytesToBase64, dataKind, replaceBinary } from "../internal/binary.js";
import { copyJson, normalizeJsonByWalk } from "../internal/json-value.js";
import { setOwnProperty, spreadWith } from "../internal/plain-object.js";

/**
 * The key, in a block's `extra`, under which LangChain's fields that our blocks do not model
 * are kept: `shape` (the content block as it came, its modelled fields held in place by
 * `null`), `at` (where an image's data or URL goes back), `data` (how an image's data was held:
 * `"bytes"`, `"buffer"`), `message` (the message's own fields, on its last block), `call` (a
 * tool call's own fields), `content` (`"string"`: the content was a string).
 */
export const LANGCHAIN_KEY = "langchain";
/** The key an opaque block carries the message's own fields under (an opaque block has no `extra`). */
export const OPAQUE_MESSAGE_KEY = `${LANGCHAIN_KEY}:message`;
/**
 * The key an opaque block notes under how its `data` was held (`"bytes"`, `"buffer"`), when it
 * was binary: the block carries it as base64, and the way back gives the same kind.
 */
export const OPAQUE_DATA_KEY = `${LANGCHAIN_KEY}:data`;

/**
 * The key a carried block (or system message) notes under where binary data below its top
 * level stood and how it was held (`[{ at: ["source", "bytes"], kind: "bytes" }]`): it is
 * carried there as base64, and the way back gives the same kind.
 */
export const OPAQUE_BINARY_KEY = `${LANGCHAIN_KEY}:binary`;

/** What an `ArrayBuffer` in a LangChain message is refused with. */
const ARRAY_BUFFER_MESSAGE =
  "is an ArrayBuffer, which LangChain's content blocks do not take (its chat models send a " +
  "Uint8Array, a Buffer or base64 text): pass new Uint8Array(buffer)";

export type Path = (string | number)[];
type Record_ = Record<string, unknown>;

/** Where conversion problems are collected, and the path of what is being read. */
export interface ReadContext {
  issues: ValidationIssue[];
  path: Path;
  /**
   * Set (shared by every context of one conversion) when a value was not copied by the quick
   * copy: it may nest up to the schema's limit from where it stands, past it from the message.
   */
  walked: { any: boolean };
}

/** A context for something inside what `context` reads. */
export function inside(context: ReadContext, ...suffix: Path): ReadContext {
  return { issues: context.issues, path: [...context.path, ...suffix], walked: context.walked };
}

/** Reports a problem at `field` of what `context` reads. */
export function fail(context: ReadContext, field: string | number, message: string): void {
  context.issues.push({ path: [...context.path, field], message });
}

/** `value` as JSON (a copy, `undefined` properties dropped); what is not JSON is reported. */
export function json(context: ReadContext, value: unknown): JsonValue {
  return copyJson(value) ?? jsonByWalk(context, value);
}

/**
 * {@link json} for a value its quick copy (`copyJson`) refused: copied by the walk that names
 * each issue (`normalizeJson` without the quick copy in front, just tried).
 */
export function jsonByWalk(context: ReadContext, value: unknown): JsonValue {
  context.walked.any = true;
  return normalizeJsonByWalk(value, context.path, context.issues) ?? null;
}

/** A JSON object copy of `value` without `keys`; `undefined` when nothing is left. */
export function jsonWithout(
  context: ReadContext,
  value: Record_,
  keys: readonly string[],
): JsonObject | undefined {
  const rest: Record_ = {};
  let any = false;
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (keys.includes(key) || field === undefined) continue;
    setOwnProperty(rest, key, field);
    any = true;
  }
  return any ? (json(context, rest) as JsonObject) : undefined;
}

/** Whether a value is an object that is not an array (a content block, a message's fields). */
export function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `part` has exactly `keys` (those not `undefined`), in that order. */
export function sameKeys(part: Record_, keys: readonly string[]): boolean {
  let at = 0;
  for (const key of Object.keys(part)) {
    if (part[key] === undefined) continue;
    if (key !== keys[at]) return false;
    at += 1;
  }
  return at === keys.length;
}

/**
 * The block's shape when it is not the default: a JSON copy with the `modelled` fields held in
 * place by `null`, so the way back restores every key in its order. `undefined` when the block
 * holds exactly the default keys in the default order.
 */
export function shapeOf(
  context: ReadContext,
  part: Record_,
  modelled: readonly string[],
  defaultKeys: readonly string[],
): JsonObject | undefined {
  if (sameKeys(part, defaultKeys)) return undefined;
  const held: Record_ = {};
  for (const key of Object.keys(part)) {
    const value = part[key];
    // An own `__proto__` key (from `JSON.parse`) is kept as one, not set as the prototype.
    if (value !== undefined) setOwnProperty(held, key, modelled.includes(key) ? null : value);
  }
  return json(context, held) as JsonObject;
}

/** `block` with LangChain fields under `extra.langchain`, when there are any. */
export function withFields<B extends Exclude<ContentBlock, OpaqueBlock>>(
  block: B,
  fields: JsonObject,
): B {
  for (const _key in fields) return spreadWith(block, { extra: keyed(LANGCHAIN_KEY, fields) });
  return block;
}

/**
 * How binary data was held (`"bytes"`: a `Uint8Array`, `"buffer"`: Node's `Buffer`), the kinds
 * LangChain's standard blocks take besides base64 text; `undefined` for any other value.
 */
function binaryKind(value: unknown): "bytes" | "buffer" | undefined {
  const kind = value instanceof Uint8Array ? dataKind(value) : undefined;
  return kind === "bytes" || kind === "buffer" ? kind : undefined;
}

/**
 * `value` as JSON, binary data anywhere below it (a `Uint8Array`, a `Buffer`: Bedrock's
 * `source.bytes`, say) as base64, where each stood noted ({@link OPAQUE_BINARY_KEY}). An
 * `ArrayBuffer` is refused by name: LangChain's blocks do not take one, nor do its chat models
 * send one.
 */
export function jsonWithBinary(context: ReadContext, value: Record_): JsonObject {
  const quick = copyJson(value);
  if (quick !== undefined) return quick as JsonObject;
  const found: JsonObject[] = [];
  const replaced = replaceBinary(value, (data, at) => {
    const kind = binaryKind(data);
    if (kind === undefined) {
      context.issues.push({ path: [...context.path, ...at], message: ARRAY_BUFFER_MESSAGE });
      return null;
    }
    found.push({ at, kind });
    return bytesToBase64(data as Uint8Array);
  }) as Record_;
  const carried = found.length === 0 ? replaced : { ...replaced, [OPAQUE_BINARY_KEY]: found };
  return json(context, carried) as JsonObject;
}

/**
 * A content block carried whole (a provider block the library does not model). Binary `data`
 * (an `audio`, `file` or `video` block's `Uint8Array` or `Buffer`) is carried as base64, its
 * kind noted ({@link OPAQUE_DATA_KEY}): counted as the base64 a provider is sent (audio by its
 * duration), not as a JSON array of numbers, and given back as it was held; binary data deeper
 * in the block too ({@link jsonWithBinary}). A field named as this adapter's own marks
 * (`langchain:…`) is refused: it would be read as one.
 */
export function opaque(context: ReadContext, part: Record_): OpaqueBlock {
  let copy: Record_ | undefined;
  for (const key of Object.keys(part)) {
    if (key.startsWith(`${LANGCHAIN_KEY}:`)) fail(context, key, BOOKKEEPING_FIELD_MESSAGE);
    if (key !== "data") continue;
    // Each field read once: the copy is what is checked and kept.
    copy = { ...part };
    const kind = binaryKind(copy["data"]);
    if (kind === undefined) continue;
    copy["data"] = bytesToBase64(copy["data"] as Uint8Array);
    copy[OPAQUE_DATA_KEY] = kind;
  }
  return { type: "opaque", block: jsonWithBinary(context, copy ?? part) };
}

/** The `data:` URL's parts, when it is exactly `data:<type>;base64,<data>`. */
function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith("data:")) return undefined;
  const marker = url.indexOf(";base64,");
  if (marker <= 5) return undefined;
  const mediaType = url.slice(5, marker);
  if (mediaType.includes(",")) return undefined;
  return { mediaType, data: url.slice(marker + ";base64,".length) };
}

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value !== "";

/** An image's source from a URL: a `data:` URL as base64 data. */
function urlSource(url: string): ImageSource {
  const inline = dataUrl(url);
  return inline === undefined ? { type: "url", url } : { type: "base64", ...inline };
}

/**
 * An image content block's source, and the path its data or URL goes back to. Each field is
 * read once: what was checked is what is kept (a getter's second answer aside).
 */
function imageSource(
  part: Record_,
): { source: ImageSource; at: string[]; kind?: "bytes" | "buffer" } | undefined {
  const { source, image_url: imageUrl } = part;
  if (part["type"] === "image_url") {
    if (nonEmpty(imageUrl)) return { source: urlSource(imageUrl), at: ["image_url"] };
    const url = isRecord(imageUrl) ? imageUrl["url"] : undefined;
    return nonEmpty(url) ? { source: urlSource(url), at: ["image_url", "url"] } : undefined;
  }
  if (isRecord(source)) {
    // Anthropic's own shape: { source: { type, media_type, data | url | file_id } }.
    const { type, media_type: mediaType, data, url, file_id: fileId } = source;
    if (type === "base64" && nonEmpty(mediaType) && typeof data === "string")
      return { source: { type: "base64", mediaType, data }, at: ["source", "data"] };
    if (type === "url" && nonEmpty(url))
      return { source: { type: "url", url }, at: ["source", "url"] };
    if (type === "file" && nonEmpty(fileId))
      return { source: { type: "file", fileId }, at: ["source", "file_id"] };
    return undefined;
  }
  // LangChain's standard shape: { url } | { data, mimeType } | { fileId }.
  const { url, data, mimeType, fileId } = part;
  if (nonEmpty(url)) return { source: { type: "url", url }, at: ["url"] };
  if (typeof data === "string" && nonEmpty(mimeType))
    return { source: { type: "base64", mediaType: mimeType, data }, at: ["data"] };
  // Binary data (LangChain's types take a `Uint8Array`) as base64, its kind given back.
  const kind = binaryKind(data);
  if (kind !== undefined && nonEmpty(mimeType)) {
    const base64 = bytesToBase64(data as Uint8Array);
    return { source: { type: "base64", mediaType: mimeType, data: base64 }, at: ["data"], kind };
  }
  if (nonEmpty(fileId)) return { source: { type: "file", fileId }, at: ["fileId"] };
  return undefined;
}

/** A copy of `part` with the value at `at` replaced by `null`. */
function hollow(part: Record_, at: readonly string[]): Record_ {
  const copy = { ...part };
  let target = copy;
  for (let index = 0; index < at.length - 1; index += 1) {
    const next = { ...(target[at[index]!] as Record_) };
    target[at[index]!] = next;
    target = next;
  }
  target[at.at(-1)!] = null;
  return copy;
}

/** An image block (`image`, `image_url`), or `undefined` when it holds no usable image. */
export function imageBlock(context: ReadContext, part: Record_): ImageBlock | undefined {
  const found = imageSource(part);
  if (found === undefined) return undefined;
  const fields: JsonObject = { shape: json(context, hollow(part, found.at)), at: found.at };
  if (found.kind !== undefined) fields["data"] = found.kind;
  return withFields({ type: "image", source: found.source }, fields);
}

/** A LangChain text part as a text block, its other fields kept. */
export function readTextPart(context: ReadContext, part: Record_): ContentBlock {
  const text = part["text"];
  if (typeof text !== "string") return opaque(context, part);
  const shape = shapeOf(context, part, ["text"], ["type", "text"]);
  const block = textBlock(text);
  return shape === undefined ? block : withFields(block, keyed("shape", shape));
}

/** A block of a user message or a tool result: text, an image, or carried whole. */
function inputBlock(context: ReadContext, part: unknown): ToolResultContentBlock {
  if (typeof part === "string") {
    // A bare string in a content array: kept as text, marked to come back as a string.
    return withFields(textBlock(part), keyed("content", "string"));
  }
  if (!isRecord(part) || typeof part["type"] !== "string") {
    context.issues.push({ path: context.path, message: "must be a content block with a type" });
    return { type: "opaque", block: {} };
  }
  if (part["type"] === "text") return readTextPart(context, part) as ToolResultContentBlock;
  if (part["type"] === "image" || part["type"] === "image_url")
    return imageBlock(context, part) ?? opaque(context, part);
  return opaque(context, part);
}

/** The blocks of a content array, by index (a hole is named: `map` would skip it). */
export function contentParts(
  context: ReadContext,
  content: readonly unknown[],
): ToolResultContentBlock[] {
  const blocks: ToolResultContentBlock[] = new Array(content.length);
  for (let index = 0; index < content.length; index += 1)
    blocks[index] = inputBlock(inside(context, "content", index), content[index]);
  return blocks;
}
