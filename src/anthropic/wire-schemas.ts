/**
 * The SDK's wire shapes (message params and content blocks) as zod schemas, and the one check
 * of what enters the adapter against them. Everything past these checks trusts its input.
 */

import * as z from "zod/mini";
import type { ValidationIssue } from "../core/errors.js";
import type { JsonObject, JsonValue } from "../core/message.js";
import { BOOLEAN_SCHEMA, STRING_SCHEMA } from "../core/option-schemas.js";
import {
  checkWireBlock,
  ImageWireSchema,
  NonEmptyStringSchema,
  parseInto,
  TextWireSchema,
} from "../core/wire-result-parts.js";
import { normalizeJson } from "../internal/json-value.js";
import { isPlainObject } from "../internal/plain-object.js";

type Path = (string | number)[];

export { NonEmptyStringSchema };

const ThinkingWireSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: STRING_SCHEMA,
  signature: STRING_SCHEMA,
});
const RedactedThinkingWireSchema = z.looseObject({
  type: z.literal("redacted_thinking"),
  data: STRING_SCHEMA,
});
const ToolUseWireSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: NonEmptyStringSchema,
  name: NonEmptyStringSchema,
  input: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
});
const ToolResultWireSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: NonEmptyStringSchema,
  content: z.optional(
    z.union([STRING_SCHEMA, z.array(z.unknown())], {
      error: "must be a string or an array of blocks",
    }),
  ),
  is_error: z.optional(BOOLEAN_SCHEMA),
});

// Blocks of other types are carried opaquely: any JSON object with a type will do.
const KNOWN_BLOCK_SCHEMAS: Record<string, z.ZodMiniType<object>> = {
  text: TextWireSchema,
  image: ImageWireSchema,
  thinking: ThinkingWireSchema,
  redacted_thinking: RedactedThinkingWireSchema,
  tool_use: ToolUseWireSchema,
  tool_result: ToolResultWireSchema,
};

/** Schema of a user or assistant message param: string or block content. */
export const MessageParamWireSchema = z.strictObject({
  role: z.enum(["user", "assistant"], { error: 'must be "user", "assistant" or "system"' }),
  content: z.union(
    [STRING_SCHEMA, z.array(z.unknown()).check(z.minLength(1, "must hold at least one block"))],
    {
      error: "must be a string or a non-empty array of blocks",
    },
  ),
});

/**
 * Schema of a mid-conversation `role: "system"` message param: string or block content (none
 * for one that only sets `output_config`), `clear_at`, and whatever else the API adds, carried
 * verbatim.
 */
export const SystemMessageWireSchema = z.looseObject({
  role: z.literal("system"),
  content: z.optional(
    z.union([STRING_SCHEMA, z.array(z.unknown())], {
      error: "must be a string or an array of blocks",
    }),
  ),
  clear_at: z.nullish(
    z.enum(["next_user_message", "never"], { error: 'must be "next_user_message" or "never"' }),
  ),
});

/** Schema of a request's `messages`, before each message is checked. */
export const MessageParamsWireSchema = z.array(z.unknown(), {
  error: "must be an array of messages",
});

/** Schema of content as blocks, before each block is checked. */
export const BlocksWireSchema = z.array(z.unknown(), {
  error: "must be a string or an array of blocks",
});

/**
 * A message param that passed {@link parseWireMessage}: a user or assistant message with its
 * blocks checked JSON objects, or a system message as its JSON.
 */
export type WireMessage =
  | { role: "user" | "assistant"; content: string | JsonObject[] }
  | { role: "system"; message: JsonObject };

/** Checks a normalized wire block (and the parts of a tool result) against what we model. */
function checkBlock(block: JsonValue, path: Path, issues: ValidationIssue[]): boolean {
  const type = checkWireBlock(block, KNOWN_BLOCK_SCHEMAS, path, issues);
  if (type === undefined) return false;
  const content = (block as JsonObject)["content"];
  if (type !== "tool_result" || !Array.isArray(content)) return true;
  return checkBlocks(content, [...path, "content"], issues);
}

/** Checks every normalized block (all of them, so each bad path is reported). */
function checkBlocks(blocks: readonly JsonValue[], path: Path, issues: ValidationIssue[]): boolean {
  let valid = true;
  blocks.forEach((block, index) => {
    valid = checkBlock(block, [...path, index], issues) && valid;
  });
  return valid;
}

/**
 * Normalizes wire blocks to JSON and checks them, adding what is wrong to `issues` with its
 * path below `path`; `undefined` when anything was.
 */
export function parseWireBlocks(
  blocks: readonly unknown[],
  path: Path,
  issues: ValidationIssue[],
): JsonObject[] | undefined {
  const before = issues.length;
  const normalized = blocks.map((block, index) => {
    const copy = normalizeJson(block, [...path, index], issues);
    if (copy !== undefined) checkBlock(copy, [...path, index], issues);
    return copy as JsonObject;
  });
  return issues.length === before ? normalized : undefined;
}

/**
 * Normalizes one message param to JSON and checks it and its blocks, adding what is wrong to
 * `issues` with its path below `path`; `undefined` when anything was. The schemas alone: what
 * decides where `QuickMessageReader` passes.
 */
export function parseWireMessage(
  param: unknown,
  path: Path,
  issues: ValidationIssue[],
): WireMessage | undefined {
  const before = issues.length;
  const normalized = normalizeJson(param, path, issues);
  if (normalized === undefined) return undefined;
  if (isPlainObject(normalized) && normalized["role"] === "system") {
    const system = parseInto(SystemMessageWireSchema, normalized, path, issues);
    if (system === undefined) return undefined;
    if (Array.isArray(system.content)) {
      checkBlocks(system.content as JsonValue[], [...path, "content"], issues);
    }
    return issues.length === before
      ? { role: "system", message: normalized as JsonObject }
      : undefined;
  }
  const shape = parseInto(MessageParamWireSchema, normalized, path, issues);
  if (shape === undefined) return undefined;
  const { role, content } = shape;
  if (typeof content !== "string")
    checkBlocks(content as JsonValue[], [...path, "content"], issues);
  return issues.length === before ? { role, content: content as string | JsonObject[] } : undefined;
}
