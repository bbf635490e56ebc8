import type { JsonObject, JsonValue } from "../core/message.js";
import { isPlainObject } from "./plain-object.js";

/**
 * The input a tool call's JSON `arguments` text stands for, and whether the text must be kept
 * beside it to come back byte for byte (it is not exactly the input's `JSON.stringify`, or it is
 * not a JSON object at all: a model's malformed arguments stand for an empty input).
 */
export function parseToolArguments(raw: string): { input: JsonObject; keep: boolean } {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isPlainObject(parsed)) {
      return { input: parsed as JsonObject, keep: JSON.stringify(parsed) !== raw };
    }
  } catch {
    // A model's malformed arguments: kept as they came, the input empty.
  }
  return { input: {}, keep: true };
}

/**
 * The `arguments` text to send for `input`: the kept original while it still stands for the
 * input (a compaction may have cleared the input since), else the input's JSON.
 */
export function toolArgumentsText(input: JsonObject, raw: JsonValue | undefined): string {
  const current = JSON.stringify(input);
  if (typeof raw !== "string") return current;
  const { input: original } = parseToolArguments(raw);
  return JSON.stringify(original) === current ? raw : current;
}
