import type { JsonObject } from "../core/message.js";
import { headOf } from "../internal/whole-characters.js";

/** The single key of a cleared tool input: `{ "_cleared": "Tool input cleared …" }`. */
export const CLEARED_INPUT_KEY = "_cleared";

const CLEARED_INPUT_NOTE = "Tool input cleared for context management";

/**
 * The small, valid JSON object that replaces a cleared tool input: it says what was there
 * (size and top-level keys) so the model knows the call happened and what it was about.
 */
export function clearedToolInput(input: JsonObject): JsonObject {
  const keys = Object.keys(input)
    .slice(0, 8)
    .map((key) => (key.length > 40 ? `${headOf(key, 40)}…` : key));
  const more = Object.keys(input).length > keys.length ? ", …" : "";
  const described = keys.length === 0 ? "" : `; keys: ${keys.join(", ")}${more}`;
  return {
    [CLEARED_INPUT_KEY]: `${CLEARED_INPUT_NOTE} (${JSON.stringify(input).length} characters${described})`,
  };
}

/** Whether a tool input is one {@link clearedToolInput} produced. */
export function isClearedToolInput(input: JsonObject): boolean {
  const keys = Object.keys(input);
  const note = input[CLEARED_INPUT_KEY];
  return keys.length === 1 && typeof note === "string" && note.startsWith(CLEARED_INPUT_NOTE);
}
