import type { JsonObject } from "../core/message.js";
import { isPlainObject } from "../internal/plain-object.js";
import { isCanonicalJson } from "./canonical-json.js";

/**
 * `parseToolArguments(raw)` for a text that is a JSON object (the input it stands for, and
 * whether the text must be kept beside it to come back byte for byte), told without writing
 * the input again when the text is surely as `JSON.stringify` writes it; `undefined` for any
 * other text (left to the full reading, which keeps it).
 */
export function readArguments(raw: string): { input: JsonObject; keep: boolean } | undefined {
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isPlainObject(input)) return undefined;
  return {
    input: input as JsonObject,
    keep: !isCanonicalJson(raw) && JSON.stringify(input) !== raw,
  };
}
