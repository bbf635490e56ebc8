import type { JsonObject, JsonValue } from "../core/message.js";
import { copyJson } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { WireMessage } from "./wire-schemas.js";

/**
 * `parseWireMessage`'s answer for the common shapes, by a hand-written check and copy that runs
 * on every message a stateless server is sent: a user or assistant message of a string or of
 * blocks whose known types carry the fields their schemas ask for. `undefined` for anything
 * else (a system message, a field missing or of another type, a key the strict message schema
 * refuses, what the quick copy leaves to `normalizeJson`): the schemas then decide, and name
 * the issues. So it may pass on valid input, never accept what they refuse.
 */
export function quickWireMessage(param: unknown): WireMessage | undefined {
  if (!isPlainObject(param)) return undefined;
  for (const key in param)
    if (!Object.hasOwn(param, key) || (key !== "role" && key !== "content")) return undefined;
  const { role, content } = param;
  if (role !== "user" && role !== "assistant") return undefined;
  if (typeof content === "string") return { role, content };
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const blocks: JsonObject[] = new Array(content.length);
  for (let index = 0; index < content.length; index += 1) {
    const block = copyJson(content[index]);
    if (!isWireBlock(block)) return undefined;
    blocks[index] = block;
  }
  return { role, content: blocks };
}

/** Whether a copied block has a type, and the fields its type's wire schema asks for. */
function isWireBlock(block: JsonValue | undefined): block is JsonObject {
  if (!isPlainObject(block) || !isNonEmptyString(block["type"])) return false;
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
