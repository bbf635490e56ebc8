import * as z from "zod/mini";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import type { ToolResultBlock, ToolResultContentBlock } from "../core/message.js";
import { BOOLEAN_SCHEMA, STRING_SCHEMA } from "../core/option-schemas.js";
import { JsonObjectSchema, ToolResultContentBlockSchema } from "../core/schemas.js";
import { resultPartsFromWire } from "../core/wire-result-parts.js";

export type { ToolResultInput } from "../core/tool-result-input.js";

const OwnShapeSchema = z.strictObject({
  type: z.literal("tool_result"),
  toolUseId: z.string().check(z.minLength(1, "must be a non-empty tool use id")),
  content: z.union([z.string(), z.array(ToolResultContentBlockSchema)], {
    error: "must be a string or an array of text and image blocks",
  }),
  isError: z.exactOptional(BOOLEAN_SCHEMA),
  compactSummary: z.exactOptional(STRING_SCHEMA),
  extra: z.exactOptional(JsonObjectSchema),
});

const SdkShapeSchema = z.strictObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().check(z.minLength(1, "must be a non-empty tool use id")),
  content: z.exactOptional(
    z.union([z.string(), z.array(z.unknown())], {
      error: "must be a string or an array of blocks",
    }),
  ),
  is_error: z.exactOptional(BOOLEAN_SCHEMA),
  cache_control: z.exactOptional(JsonObjectSchema),
  compactSummary: z.exactOptional(z.string()),
});

/**
 * The SDK's `tool_result` param as ours: its content blocks (text, images, documents, search
 * results, …) read as `fromAnthropicMessages` reads a tool result's.
 */
function fromSdkShape(value: unknown, index: number): ToolResultBlock {
  const what = `tool results[${index}]`;
  const parsed = parseOrThrow(SdkShapeSchema, value, what);
  const given = parsed.content ?? "";
  let content: string | ToolResultContentBlock[];
  if (typeof given === "string") content = given;
  else {
    const issues: ValidationIssue[] = [];
    const parts = resultPartsFromWire(given, ["content"], issues);
    if (parts === undefined) throw new ValidationError(what, issues);
    content = parts;
  }
  return {
    type: "tool_result",
    toolUseId: parsed.tool_use_id,
    content,
    isError: parsed.is_error ?? false,
    ...(parsed.compactSummary === undefined ? {} : { compactSummary: parsed.compactSummary }),
    ...(parsed.cache_control === undefined
      ? {}
      : { extra: { cache_control: parsed.cache_control } }),
  };
}

/**
 * Turns what `addToolResults` was given into tool result blocks, and checks that each one
 * answers a `tool_use` of the assistant message right before (the API refuses a result that
 * answers nothing), once.
 * @throws {ValidationError} naming the offending result and id.
 */
export function toToolResultBlocks(
  results: unknown,
  pendingToolUseIds: ReadonlySet<string>,
): ToolResultBlock[] {
  if (!Array.isArray(results) || results.length === 0) {
    throw new ValidationError("tool results", [
      { path: [], message: "must be a non-empty array of tool results" },
    ]);
  }
  const blocks = results.map((result: unknown, index) => {
    if (typeof result === "object" && result !== null && "tool_use_id" in result) {
      return fromSdkShape(result, index);
    }
    const { isError, ...block } = parseOrThrow(OwnShapeSchema, result, `tool results[${index}]`);
    return { ...block, isError: isError ?? false } as ToolResultBlock;
  });
  const issues: ValidationIssue[] = [];
  const answered = new Set<string>();
  const expected = [...pendingToolUseIds].join(", ") || "none";
  blocks.forEach((block, index) => {
    if (!pendingToolUseIds.has(block.toolUseId)) {
      issues.push({
        path: [index, "toolUseId"],
        message: `"${block.toolUseId}" answers no tool_use of the previous assistant message (its tool_use ids: ${expected})`,
      });
    } else if (answered.has(block.toolUseId)) {
      issues.push({
        path: [index, "toolUseId"],
        message: `a second result for tool_use "${block.toolUseId}"`,
      });
    }
    answered.add(block.toolUseId);
  });
  if (issues.length > 0) throw new ValidationError("tool results", issues);
  return blocks;
}
