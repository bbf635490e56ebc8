import { ValidationError } from "./errors.js";
import type { ToolResultInput } from "./tool-result-input.js";

/**
 * The JSON `arguments` text of the tool call `id` (the recall and compact tools' calls, as the
 * Chat Completions and Responses APIs write them) as its input (none: `{}`), or the error
 * result refusing them, `after` appended to what it says.
 * @throws {ValidationError} when `id` is no non-empty string: no result could answer the call
 * (checked before anything is done for it).
 */
export function parsedCallArguments(
  id: unknown,
  raw: unknown,
  after = "",
): { input: unknown } | ToolResultInput {
  if (typeof id !== "string" || id === "")
    throw new ValidationError("tool call id", [
      { path: [], message: "must be a non-empty string" },
    ]);
  try {
    const text = typeof raw === "string" ? raw.trim() : "not a string";
    return { input: text === "" ? {} : JSON.parse(text) };
  } catch {
    return {
      type: "tool_result",
      tool_use_id: id,
      content: `The arguments must be a JSON object.${after}`,
      is_error: true,
    };
  }
}
