import { checkedJsonObjectLength } from "../internal/json-length.js";
import { isJsonObject } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import type { ContentBlock } from "./message.js";
import {
  estimateBlockTokens,
  estimateToolUseTokens,
  keptArgumentsLength,
  MESSAGE_OVERHEAD_TOKENS,
} from "./tokens.js";

/**
 * A hand-written check of the shapes `MessageSchema` accepts, fast enough to run on every
 * message of every request (a stateless server sees the whole history each time). It is a
 * fast path in front of the schema, never a second definition of a message: it answers
 * "well formed" only for what the schema accepts, and leaves everything else, valid or not, to
 * the schema, which then accepts it or names its issues. So it may be stricter than the
 * schema, never looser: a JSON value (a tool input, an `extra`) must be plain
 * (`Object.prototype`), and anything it does not model goes to the schema. An optional field
 * set to `undefined` is taken as absent, as the schema's retry takes it (`parseOrThrow`).
 * `test/fuzz/message-fast-check.fuzz.test.ts` holds it to that.
 */

/**
 * An object that is no array, as the schema's objects take it (its prototype is not asked for:
 * that was a tenth of the check, and the schema reads inherited fields as this does).
 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/*
 * An optional field is absent or `undefined` (the schema's exact optional refuses `undefined`
 * at first, then takes it as absent: see `parseOrThrow`), or set to what its check accepts:
 * written out at each field, not as a helper taking the check as a function, which V8 did not
 * inline (the checks took a fifth longer).
 */

/** A provider `extra`: absent, or a JSON object. */
function extraValid(block: Record<string, unknown>): boolean {
  const extra = block["extra"];
  return extra === undefined || isJsonObject(extra);
}

function imageSourceValid(source: unknown): boolean {
  if (!isRecord(source)) return false;
  switch (source["type"]) {
    case "base64":
      return isNonEmptyString(source["mediaType"]) && typeof source["data"] === "string";
    case "url":
      return isNonEmptyString(source["url"]);
    case "file":
      return isNonEmptyString(source["fileId"]);
    default:
      return false;
  }
}

/** A block a tool result may hold: text, image or opaque. */
function resultPartValid(part: unknown): boolean {
  if (!isRecord(part)) return false;
  switch (part["type"]) {
    case "text":
      return typeof part["text"] === "string" && extraValid(part);
    case "image":
      return imageSourceValid(part["source"]) && extraValid(part);
    case "opaque":
      return isJsonObject(part["block"]);
    default:
      return false;
  }
}

function toolResultValid(block: Record<string, unknown>): boolean {
  if (!isNonEmptyString(block["toolUseId"]) || typeof block["isError"] !== "boolean") return false;
  const content = block["content"];
  if (typeof content !== "string") {
    if (!Array.isArray(content)) return false;
    for (let index = 0; index < content.length; index += 1)
      if (!resultPartValid(content[index])) return false;
  }
  const summary = block["compactSummary"];
  return (summary === undefined || typeof summary === "string") && extraValid(block);
}

/**
 * The estimate of `block` ({@link estimateBlockTokens}) when it is certainly a well-formed
 * content block (see the module's comment), else `-1`.
 */
function blockTokens(block: unknown): number {
  if (!isRecord(block)) return -1;
  let valid: boolean;
  switch (block["type"]) {
    case "tool_use": {
      // The input is checked and measured in one walk: the estimate needs its JSON length.
      const { name } = block;
      if (!isNonEmptyString(block["id"]) || !isNonEmptyString(name) || !extraValid(block))
        return -1;
      const inputLength = checkedJsonObjectLength(block["input"]);
      if (inputLength < 0) return -1;
      const kept = keptArgumentsLength(block["extra"] as Record<string, unknown> | undefined);
      return estimateToolUseTokens(block["id"], name, Math.max(inputLength, kept));
    }
    case "tool_result":
      valid = toolResultValid(block);
      break;
    case "text":
      valid = typeof block["text"] === "string" && extraValid(block);
      break;
    case "thinking":
      valid =
        typeof block["thinking"] === "string" &&
        typeof block["signature"] === "string" &&
        extraValid(block);
      break;
    case "redacted_thinking":
      valid = typeof block["data"] === "string" && extraValid(block);
      break;
    case "image":
      valid = imageSourceValid(block["source"]) && extraValid(block);
      break;
    case "opaque":
      valid = isJsonObject(block["block"]);
      break;
    default:
      return -1;
  }
  return valid ? estimateBlockTokens(block as unknown as ContentBlock) : -1;
}

function turnIdValid(turnId: unknown): boolean {
  if (!isRecord(turnId) || !isNonEmptyString(turnId["owner"])) return false;
  const number = turnId["number"];
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0;
}

/** Whether `date` is a `Date` holding a time. */
export function isValidDate(date: unknown): boolean {
  if (!(date instanceof Date)) return false;
  try {
    return !Number.isNaN(date.getTime());
  } catch {
    // An object made from Date.prototype without being a date: the schema's to judge.
    return false;
  }
}

/** An optional `generated`: absent, or one of its kinds. */
function generatedValid(value: unknown): boolean {
  return (
    value === undefined || value === "summary" || value === "continuation" || value === "notice"
  );
}

/**
 * The local token estimate of `value` (what `estimateTokens` counts for it) when `value` is
 * certainly a well-formed message as `MessageSchema` defines one; `-1` when the schema must
 * judge it (it may still be valid). Reads each field once and copies nothing.
 */
export function fastMessageTokens(value: unknown): number {
  if (!isRecord(value)) return -1;
  const role = value["role"];
  if (
    (role !== "user" && role !== "assistant") ||
    !isNonEmptyString(value["id"]) ||
    !isNonEmptyString(value["sessionId"]) ||
    !turnIdValid(value["turnId"]) ||
    !isValidDate(value["createdAt"]) ||
    !generatedValid(value["generated"])
  )
    return -1;
  const content = value["content"];
  if (!Array.isArray(content) || content.length === 0) return -1;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (let index = 0; index < content.length; index += 1) {
    const block = blockTokens(content[index]);
    if (block < 0) return -1;
    tokens += block;
  }
  return tokens;
}
