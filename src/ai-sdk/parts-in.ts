import { BOOKKEEPING_FIELD_MESSAGE, isBookkeepingKey } from "../core/bookkeeping-keys.js";
import type { ValidationIssue } from "../core/errors.js";
import {
  COMPACTION_BLOCK_TYPE,
  type ContentBlock,
  type ImageBlock,
  type JsonObject,
  type JsonValue,
  type OpaqueBlock,
} from "../core/message.js";
import { keyed, redactedThinkingBlock, textBlock, thinkingBlock } from "../core/message-shapes.js";
import { type DataKind, dataKind, dataToText } from "../internal/binary.js";
import { copyJson, normalizeJson } from "../internal/json-value.js";
import { isPlainObject, setOwnProperty, spreadWith } from "../internal/plain-object.js";

/**
 * The key, in a block's `extra`, under which the AI SDK's fields that our blocks do not model
 * are kept verbatim (`providerOptions`, a tool result's `toolName`, how data was held), so
 * `toModelMessages` gives back the parts `fromModelMessages` took.
 */
export const AI_SDK_KEY = "aiSdk";

/** The AI SDK's fields of one block that ours do not model. */
export type AiSdkFields = JsonObject;

type Path = (string | number)[];
/** A part as the AI SDK hands it: its fields read by name. */
export type Record_ = Record<string, unknown>;

/**
 * Where conversion problems are collected, and the path of the part being read (worked out
 * only when a problem is reported: a valid conversation allocates no paths).
 */
export interface PartContext {
  readonly issues: ValidationIssue[];
  readonly path: Path;
  /**
   * The tool name of the latest call converted before with this id: a result naming its
   * call's tool need not keep it.
   */
  callName?(toolUseId: string): string | undefined;
  /**
   * Set by {@link toolCallPart} when it checked the call's input in the walk that measured it:
   * the input's JSON length, for the estimate (`-1`: not measured).
   */
  inputLength?: number;
  /** A tool call's input is copied, not shared with the caller (see `convertModelMessages`). */
  copyInputs?: boolean;
}

/** A context for something nested in the part (`output`, `value`, an index). */
export function child(context: PartContext, ...suffix: Path): PartContext {
  return {
    issues: context.issues,
    get path() {
      return [...context.path, ...suffix];
    },
  };
}

/**
 * Whether `value` is JSON (finite numbers, plain objects, arrays without holes): the quick
 * check of what is nearly always valid; what it refuses, or finds deeper than 32 levels, the
 * full walk (`jsonValueIssues`, which names the path) decides.
 */
function isJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth > 32) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isJson(item, depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!isJson(value[key], depth + 1)) return false;
  return true;
}

export function fail(context: PartContext, field: string | undefined, message: string): void {
  context.issues.push({
    path: field === undefined ? context.path : [...context.path, field],
    message,
  });
}

/**
 * `value`, the part's `field`, as a string; reports it otherwise. Given the value, not the
 * part: a field read by name at each call site is a fixed property load, where `part[field]`
 * would be a keyed one (slower by the hundred thousand, on a conversation of 10k messages).
 */
export function stringField(
  context: PartContext,
  value: unknown,
  field: string,
  empty = true,
): string {
  if (typeof value === "string" && (empty || value !== "")) return value;
  fail(context, field, empty ? "must be a string" : "must be a non-empty string");
  return "";
}

/**
 * A JSON value carried verbatim; reports what JSON cannot hold. An object property holding
 * `undefined` (the AI SDK accepts them: `@ai-sdk/anthropic` writes `caller.toolId: undefined`)
 * is dropped, as `JSON.stringify` drops it: the value is then a copy without it.
 */
export function jsonField(
  context: PartContext,
  value: unknown,
  field: string,
  nullItems = false,
): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (isJson(value, 0)) return value as JsonValue;
  const issues: ValidationIssue[] = [];
  const copy = normalizeJson(value, [], issues, nullItems);
  for (const issue of issues) {
    context.issues.push({ path: [...context.path, field, ...issue.path], message: issue.message });
  }
  return issues.length === 0 ? copy : undefined;
}

export function withExtra<B extends object>(block: B, fields: AiSdkFields): B {
  for (const _ in fields) return spreadWith(block, { extra: keyed(AI_SDK_KEY, fields) });
  return block;
}

/** The part's `providerOptions`, checked, into `fields`; with `copy`, as a JSON copy. */
export function keepProviderOptions(
  context: PartContext,
  part: Record_,
  fields: AiSdkFields,
  copy = false,
): void {
  const value = part["providerOptions"];
  if (value === undefined) return;
  if (!isPlainObject(value)) {
    fail(context, "providerOptions", "must be an object");
    return;
  }
  const options = jsonField(context, copy ? (copyJson(value) ?? value) : value, "providerOptions");
  if (options !== undefined) fields["providerOptions"] = options;
}

function anthropicOptions(part: Record_): Record_ | undefined {
  const options = part["providerOptions"];
  if (!isPlainObject(options)) return undefined;
  const anthropic = options["anthropic"];
  return isPlainObject(anthropic) ? anthropic : undefined;
}

/**
 * A part carried whole (tool approvals, provider-executed calls, files, custom parts). A field
 * named as the library's bookkeeping (`aiSdk:data`, `openai:item`, …: see `BOOKKEEPING_KEYS`)
 * is refused: on the block it would be read as the adapters' own mark, and dropped on the way
 * to another provider.
 */
export function opaquePart(context: PartContext, part: Record_): OpaqueBlock {
  const block: JsonObject = {};
  for (const key of Object.keys(part)) {
    const value = part[key];
    if (value === undefined) continue;
    if (isBookkeepingKey(key)) {
      fail(context, key, BOOKKEEPING_FIELD_MESSAGE);
      continue;
    }
    const kind = key === "data" ? dataKind(value) : undefined;
    if (kind !== undefined && kind !== "string") {
      block["data"] = dataToText(value as Uint8Array);
      block[`${AI_SDK_KEY}:data`] = kind;
      continue;
    }
    const json = jsonField(context, value, key);
    // A field named `__proto__` (JSON.parse makes it an own field) stays one.
    if (json !== undefined) setOwnProperty(block, key, json);
  }
  return { type: "opaque", block };
}

/**
 * A text part; Anthropic's compaction block (a text part whose `providerOptions.anthropic.type`
 * is `compaction`) becomes the API's own block, its signature kept beside its content.
 */
export function textPart(context: PartContext, part: Record_): ContentBlock {
  const text = stringField(context, part["text"], "text");
  const options = part["providerOptions"];
  if (options === undefined) return textBlock(text);
  // Read once, into a JSON copy it is then read from: what was checked is what is kept.
  const fields: AiSdkFields = {};
  keepProviderOptions(context, { providerOptions: options }, fields, true);
  const copy = fields["providerOptions"] as JsonObject | undefined;
  const anthropic = anthropicOptions({ providerOptions: copy });
  if (anthropic?.["type"] === COMPACTION_BLOCK_TYPE) return compactionPart(copy!, text);
  return withExtra(textBlock(text), fields);
}

/** Anthropic's compaction block, from a JSON copy of its part's options. */
function compactionPart(options: JsonObject, text: string): OpaqueBlock {
  const block: JsonObject = { type: COMPACTION_BLOCK_TYPE, content: text };
  const anthropic = options["anthropic"] as JsonObject;
  if (typeof anthropic["signature"] === "string") block["signature"] = anthropic["signature"];
  if (anthropic["cacheControl"] !== undefined) block["cache_control"] = anthropic["cacheControl"];
  block[`${AI_SDK_KEY}:providerOptions`] = options;
  return { type: "opaque", block };
}

function imageSource(
  context: PartContext,
  data: unknown,
  mediaType: unknown,
  field: string,
): { source: ImageBlock["source"]; kind: DataKind; mediaTypeKept: boolean } | undefined {
  const kind = dataKind(data);
  if (kind === undefined) {
    fail(context, field, "must be a base64 string, a Uint8Array, an ArrayBuffer or a URL");
    return undefined;
  }
  const text = dataToText(data as string);
  if (kind === "URL" || (kind === "string" && /^https?:\/\//i.test(text))) {
    return { source: { type: "url", url: text }, kind, mediaTypeKept: false };
  }
  // `image/*` is what a block without a media type holds: one given so is kept apart.
  const known = typeof mediaType === "string" && mediaType !== "" && mediaType !== "image/*";
  return {
    source: { type: "base64", mediaType: known ? mediaType : "image/*", data: text },
    kind,
    mediaTypeKept: known,
  };
}

/** An image part, or a file part holding an image. */
export function imagePart(context: PartContext, part: Record_, asFile: boolean): ImageBlock {
  const field = asFile ? "data" : "image";
  const found = imageSource(context, part[field], part["mediaType"], field);
  const fields: AiSdkFields = {};
  if (asFile) fields["part"] = "file";
  if (found !== undefined && found.kind !== "string") fields["data"] = found.kind;
  if (found !== undefined && !found.mediaTypeKept && part["mediaType"] !== undefined) {
    const mediaType = jsonField(context, part["mediaType"], "mediaType");
    if (mediaType !== undefined) fields["mediaType"] = mediaType;
  }
  if (part["filename"] !== undefined) {
    fields["filename"] = stringField(context, part["filename"], "filename");
  }
  keepProviderOptions(context, part, fields);
  const source = found?.source ?? { type: "url", url: "about:blank" };
  return withExtra({ type: "image", source }, fields);
}

/** A file part: an image becomes an image block, any other file is carried whole. */
export function filePart(context: PartContext, part: Record_): ContentBlock {
  const mediaType = stringField(context, part["mediaType"], "mediaType", false);
  return mediaType.startsWith("image/")
    ? imagePart(context, part, true)
    : opaquePart(context, part);
}

/**
 * A reasoning part: Anthropic's signed thinking (or its redacted form) becomes our thinking
 * block, which compaction keeps or removes whole; any other (OpenAI's encrypted reasoning, …)
 * is carried whole and in place, never removed apart from the part that follows it.
 */
export function reasoningPart(context: PartContext, part: Record_): ContentBlock {
  const text = stringField(context, part["text"], "text");
  const anthropic = anthropicOptions(part);
  const signature = anthropic?.["signature"];
  const redacted = anthropic?.["redactedData"];
  if (typeof signature !== "string" && typeof redacted !== "string")
    return opaquePart(context, part);
  const fields: AiSdkFields = {};
  keepProviderOptions(context, part, fields);
  if (typeof signature === "string") return withExtra(thinkingBlock(text, signature), fields);
  if (text !== "") fields["text"] = text;
  return withExtra(redactedThinkingBlock(redacted as string), fields);
}
