import type { FunctionTool } from "openai/resources/responses/responses";
import type { ToolResultInput } from "../core/tool-result-input.js";

/** A tool's spec (`compactToolSpec()`, `recallToolSpec()`) as a Responses API function tool. */
export function functionTool<Name extends string, Schema extends Record<string, unknown>>(spec: {
  name: Name;
  description: string;
  schema: Schema;
}) {
  const { name, description, schema } = spec;
  return {
    type: "function" as const,
    name,
    description,
    parameters: schema,
    strict: false as const,
  } satisfies FunctionTool;
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
