import type { FunctionTool } from "openai/resources/responses/responses";
import {
  answerCompactCall,
  type CompactToolSession,
  compactToolSpec,
} from "../core/compact-tool-call.js";
import type { ToolResultInput } from "../core/tool-result-input.js";

const { name, description, schema } = compactToolSpec();

/**
 * The Responses API function tool that lets the model ask for a compaction at a natural
 * boundary (a sub-task done; not mid-derivation): add it to `tools`, and answer its
 * `function_call` items with {@link answerCompactFunctionCall}.
 */
export const COMPACT_FUNCTION_TOOL = {
  type: "function",
  name,
  description,
  parameters: schema,
  strict: false,
} satisfies FunctionTool;

/**
 * Answers a {@link COMPACT_FUNCTION_TOOL} call (its `arguments` JSON): `session.requestCompaction`
 * with the call's `notes`, and the tool result for `addToolResults` (an error result,
 * scheduling nothing, for arguments that are not JSON or notes that are not a string).
 *
 * @example
 * if (call.name === COMPACT_FUNCTION_TOOL.name) results.push(answerCompactFunctionCall(session, call));
 */
export function answerCompactFunctionCall(
  session: CompactToolSession,
  call: { call_id: string; arguments: string },
): ToolResultInput {
  const parsed = functionCallInput(call, " No compaction was scheduled.");
  return "input" in parsed ? answerCompactCall(session, call.call_id, parsed.input) : parsed;
}

/**
 * A `function_call`'s `arguments` as JSON (none: `{}`), or the error result refusing them,
 * `after` appended to what it says.
 */
export function functionCallInput(
  call: { call_id: string; arguments: string },
  after: string,
): { input: unknown } | ToolResultInput {
  try {
    const text = typeof call.arguments === "string" ? call.arguments.trim() : "not a string";
    return { input: text === "" ? {} : JSON.parse(text) };
  } catch {
    return {
      type: "tool_result",
      tool_use_id: call.call_id,
      content: `The arguments must be a JSON object.${after}`,
      is_error: true,
    };
  }
}
