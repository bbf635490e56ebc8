/**
 * The parts of a Messages API `tool_result` (its `content` blocks) as the wire has them, checked
 * and converted to ours: shared by the Anthropic adapter (`fromAnthropicMessages`) and by
 * `addToolResults`, which takes the SDK's `tool_result` param, so both read a part the same.
 */

import * as z from "zod/mini";
import { normalizeJson, setProperty } from "../internal/json-value.js";
import { spreadWith } from "../internal/plain-object.js";
import { BOOKKEEPING_FIELD_MESSAGE, isBookkeepingKey } from "./bookkeeping-keys.js";
import { parseOrThrow, ValidationError, type ValidationIssue } from "./errors.js";
import type {
  ImageBlock,
  ImageSource,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  ToolResultContentBlock,
} from "./message.js";
import { STRING_SCHEMA } from "./option-schemas.js";

type Path = (string | number)[];

/** Schema of a non-empty string, with the adapter's wording. */
export const NonEmptyStringSchema = z
  .string({ error: "must be a string" })
  .check(z.minLength(1, "must be a non-empty string"));

/** Schema of a wire `text` block. */
export const TextWireSchema = z.looseObject({ type: z.literal("text"), text: STRING_SCHEMA });
/** Schema of a wire `image` block (a source we do not model is carried whole). */
export const ImageWireSchema = z.looseObject({
  type: z.literal("image"),
  source: z.looseObject({ type: STRING_SCHEMA }, { error: "must be an object with a type" }),
});
const BlockShapeSchema = z.looseObject(
  { type: NonEmptyStringSchema },
  { error: "must be a content block (an object with a type)" },
);

/** What `schema` makes of `value`, or undefined after adding its issues below `path`. */
export function parseInto<T extends object>(
  schema: z.ZodMiniType<T>,
  value: unknown,
  path: Path,
  issues: ValidationIssue[],
): T | undefined {
  try {
    return parseOrThrow(schema, value, "Anthropic wire data");
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    for (const issue of error.issues) {
      issues.push({ path: [...path, ...issue.path], message: issue.message });
    }
    return undefined;
  }
}

/**
 * Checks a normalized wire block: an object with a type, no field named as the library's
 * bookkeeping (it would be read as an adapter's mark, the block taken for another API's and
 * left out), and the fields `known` has a schema for its type want; other types are carried
 * whole. Adds what is wrong to `issues` below `path`; the block's type when it passed.
 */
export function checkWireBlock(
  block: JsonValue,
  known: Readonly<Record<string, z.ZodMiniType<object>>>,
  path: Path,
  issues: ValidationIssue[],
): string | undefined {
  const shape = parseInto(BlockShapeSchema, block, path, issues);
  if (shape === undefined) return undefined;
  const before = issues.length;
  for (const key of Object.keys(shape))
    if (isBookkeepingKey(key))
      issues.push({ path: [...path, key], message: BOOKKEEPING_FIELD_MESSAGE });
  if (issues.length > before) return undefined;
  const schema = known[shape.type];
  if (schema !== undefined && parseInto(schema, block, path, issues) === undefined)
    return undefined;
  return shape.type;
}

/** `block` with `extra`, when `extra` holds anything. */
export function withExtra<B extends object>(
  block: B,
  extra: JsonObject,
): B & { extra?: JsonObject } {
  return Object.keys(extra).length === 0 ? block : spreadWith(block, { extra });
}

/** The fields of a wire block we do not model: its `extra`. */
export function rest(block: JsonObject, modelled: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key in block) {
    if (Object.hasOwn(block, key) && key !== "type" && !modelled.includes(key))
      setProperty(out, key, block[key] as JsonValue);
  }
  return out;
}

function hasExactly(object: JsonObject, keys: readonly string[]): boolean {
  const own = Object.keys(object);
  return own.length === keys.length && keys.every((key) => typeof object[key] === "string");
}

/** Our image source for a wire source, or undefined when it carries more than we model. */
function imageSourceFromWire(source: JsonObject): ImageSource | undefined {
  if (source["type"] === "base64" && hasExactly(source, ["type", "media_type", "data"])) {
    const mediaType = source["media_type"] as string;
    return mediaType === ""
      ? undefined
      : { type: "base64", mediaType, data: source["data"] as string };
  }
  if (source["type"] === "url" && hasExactly(source, ["type", "url"]) && source["url"] !== "") {
    return { type: "url", url: source["url"] as string };
  }
  if (
    source["type"] === "file" &&
    hasExactly(source, ["type", "file_id"]) &&
    source["file_id"] !== ""
  ) {
    return { type: "file", fileId: source["file_id"] as string };
  }
  return undefined;
}

/** A checked wire image as ours; one whose source we do not model, carried whole. */
export function imageFromWire(block: JsonObject): ImageBlock | OpaqueBlock {
  const source = imageSourceFromWire(block["source"] as JsonObject);
  if (source === undefined) return { type: "opaque", block };
  return withExtra({ type: "image", source }, rest(block, ["source"]));
}

/**
 * A checked part of a tool result as ours: text and images modelled (the fields we do not
 * model in `extra`), a `document`, a `search_result` and any other block carried whole.
 */
export function resultPartFromWire(part: JsonObject): ToolResultContentBlock {
  if (part["type"] === "text")
    return withExtra({ type: "text", text: part["text"] as string }, rest(part, ["text"]));
  if (part["type"] === "image") return imageFromWire(part);
  return { type: "opaque", block: part };
}

/** The part types a tool result's check reads the fields of; the rest are carried whole. */
const RESULT_PART_SCHEMAS = { text: TextWireSchema, image: ImageWireSchema };

/**
 * A tool result's `content` blocks as the SDK takes them, normalized to JSON, checked
 * ({@link checkWireBlock}) and converted ({@link resultPartFromWire}); `undefined` after adding
 * each malformed part's issues below `path`.
 */
export function resultPartsFromWire(
  parts: readonly unknown[],
  path: Path,
  issues: ValidationIssue[],
): ToolResultContentBlock[] | undefined {
  const before = issues.length;
  const out: ToolResultContentBlock[] = [];
  parts.forEach((part, index) => {
    const at = [...path, index];
    const json = normalizeJson(part, at, issues);
    if (json === undefined || checkWireBlock(json, RESULT_PART_SCHEMAS, at, issues) === undefined)
      return;
    out.push(resultPartFromWire(json as JsonObject));
  });
  return issues.length === before ? out : undefined;
}
