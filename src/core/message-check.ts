/**
 * A hand-written, allocation-light check that a value is a well-formed message: the fast path
 * in front of `MessageSchema`. It only ever answers `true` for values the schema accepts; it may
 * answer `false` for some the schema accepts too (objects that are not plain, an own `__proto__`
 * key, JSON nested deeper than {@link MAX_JSON_DEPTH}), and the caller then asks the schema.
 * Every rule here mirrors one in `schemas.ts`; keep the two in step.
 *
 * Values are read once, as plain data: objects whose getters or proxies answer differently on
 * each read are beyond what this (or the schema) can vouch for.
 */

import { isPlainObject } from "./plain-object.js";

/** How deeply JSON values may nest (arrays and objects) before the fast check gives up. */
export const MAX_JSON_DEPTH = 64;

type Fields = Record<string, unknown>;

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/**
 * A JSON object (`JsonObjectSchema`): plain, no symbol keys, every enumerable value JSON. Like
 * the schema, non-enumerable keys are not looked at; `for…in` also yields inherited enumerable
 * keys, which only makes this stricter.
 */
function isJsonObject(value: unknown, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH || !isPlainObject(value)) return false;
  // The schema refuses (enumerable) symbol keys; `for…in` never yields them.
  if (Object.getOwnPropertySymbols(value).length !== 0) return false;
  for (const key in value) {
    // The schema skips an own `__proto__` key; leave such objects to it.
    if (key === "__proto__" || !isJsonValue(value[key], depth)) return false;
  }
  return true;
}

function isJsonArray(value: readonly unknown[], depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  for (let index = 0; index < value.length; index += 1) {
    if (!isJsonValue(value[index], depth)) return false;
  }
  return true;
}

/** A JSON value (`JsonValueSchema`) inside a container at `depth`. */
function isJsonValue(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      if (value === null) return true;
      return Array.isArray(value) ? isJsonArray(value, depth + 1) : isJsonObject(value, depth + 1);
    default:
      return false;
  }
}

/** An exact-optional JSON object field: absent, or present with a JSON object (never `undefined`). */
function hasValidExtra(block: Fields): boolean {
  const extra = block.extra;
  if (extra === undefined) return !("extra" in block);
  return isJsonObject(extra, 1);
}

function isImageSource(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  switch (value.type) {
    case "base64":
      return isNonEmptyString(value.mediaType) && typeof value.data === "string";
    case "url":
      return isNonEmptyString(value.url);
    case "file":
      return isNonEmptyString(value.fileId);
    default:
      return false;
  }
}

const TOOL_RESULT_PART_TYPES: ReadonlySet<unknown> = new Set(["text", "image", "opaque"]);

/** A text, image or opaque block: what a tool result's content array may hold. */
function isToolResultContentBlock(value: unknown): boolean {
  return isPlainObject(value) && TOOL_RESULT_PART_TYPES.has(value.type) && isWellFormedBlock(value);
}

function isToolResultContent(value: unknown): boolean {
  if (typeof value === "string") return true;
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index += 1) {
    if (!isToolResultContentBlock(value[index])) return false;
  }
  return true;
}

function isToolResultBlock(block: Fields): boolean {
  if (!isNonEmptyString(block.toolUseId) || typeof block.isError !== "boolean") return false;
  if (!isToolResultContent(block.content)) return false;
  const summary = block.compactSummary;
  if (summary === undefined ? "compactSummary" in block : typeof summary !== "string") return false;
  return hasValidExtra(block);
}

/** Whether `value` is a content block `ContentBlockSchema` accepts (plain objects only). */
export function isWellFormedBlock(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  switch (value.type) {
    case "text":
      return typeof value.text === "string" && hasValidExtra(value);
    case "tool_result":
      return isToolResultBlock(value);
    case "tool_use":
      return (
        isNonEmptyString(value.id) &&
        isNonEmptyString(value.name) &&
        isJsonObject(value.input, 1) &&
        hasValidExtra(value)
      );
    case "thinking":
      return (
        typeof value.thinking === "string" &&
        typeof value.signature === "string" &&
        hasValidExtra(value)
      );
    case "redacted_thinking":
      return typeof value.data === "string" && hasValidExtra(value);
    case "image":
      return isImageSource(value.source) && hasValidExtra(value);
    case "opaque":
      return isJsonObject(value.block, 1);
    default:
      return false;
  }
}

function isTurnId(value: unknown): boolean {
  if (!isPlainObject(value) || !isNonEmptyString(value.owner)) return false;
  const number = value.number;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0;
}

function isValidDate(value: unknown): boolean {
  if (!(value instanceof Date)) return false;
  try {
    return !Number.isNaN(value.getTime());
  } catch {
    // An object posing as a Date (`Object.create(Date.prototype)`).
    return false;
  }
}

/**
 * Whether `value` is a message `MessageSchema` accepts. `true` is a promise the schema accepts it;
 * `false` means it refuses it or this check is stricter than it (non-plain objects, deep JSON).
 */
export function isWellFormedMessage(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const role = value.role;
  if (role !== "user" && role !== "assistant") return false;
  if (!isNonEmptyString(value.id) || !isNonEmptyString(value.sessionId)) return false;
  if (!isTurnId(value.turnId) || !isValidDate(value.createdAt)) return false;
  const content = value.content;
  if (!Array.isArray(content) || content.length === 0) return false;
  for (let index = 0; index < content.length; index += 1) {
    if (!isWellFormedBlock(content[index])) return false;
  }
  return true;
}

/** Ids longer than twice this are hashed on their first and last this many characters. */
const HASHED_ID_END = 32;

function hashId(id: string): number {
  let hash = 0x811c9dc5 ^ id.length;
  const length = id.length;
  if (length <= 2 * HASHED_ID_END) {
    for (let index = 0; index < length; index += 1) {
      hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
    }
    return hash;
  }
  for (let index = 0; index < HASHED_ID_END; index += 1) {
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  }
  for (let index = length - HASHED_ID_END; index < length; index += 1) {
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  }
  return hash;
}

/**
 * Whether no two messages share an id. Strictly increasing ids (uuid v7 ids made in order) are
 * distinct without hashing; otherwise an open-addressed table of indexes, sized once (several
 * times faster than a `Set` of 10,000 fresh strings), with a `Set` if probing degenerates.
 */
export function hasUniqueIds(messages: readonly { readonly id: string }[]): boolean {
  const count = messages.length;
  if (count < 2) return true;
  let previous = (messages[0] as { readonly id: string }).id;
  let index = 1;
  while (index < count) {
    const id = (messages[index] as { readonly id: string }).id;
    if (!(previous < id)) break;
    previous = id;
    index += 1;
  }
  if (index === count) return true;

  let size = 16;
  while (size < 2 * count) size *= 2;
  const mask = size - 1;
  // Message index + 1 per slot; 0 is empty.
  const slots = new Int32Array(size);
  let probesLeft = 8 * count;
  for (index = 0; index < count; index += 1) {
    const id = (messages[index] as { readonly id: string }).id;
    let slot = hashId(id) & mask;
    for (;;) {
      const taken = slots[slot] as number;
      if (taken === 0) {
        slots[slot] = index + 1;
        break;
      }
      if ((messages[taken - 1] as { readonly id: string }).id === id) return false;
      probesLeft -= 1;
      if (probesLeft < 0) return hasUniqueIdsBySet(messages);
      slot = (slot + 1) & mask;
    }
  }
  return true;
}

function hasUniqueIdsBySet(messages: readonly { readonly id: string }[]): boolean {
  const seen = new Set<string>();
  for (const message of messages) {
    if (seen.has(message.id)) return false;
    seen.add(message.id);
  }
  return true;
}
