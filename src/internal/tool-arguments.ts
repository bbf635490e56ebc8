import type { JsonObject, JsonValue } from "../core/message.js";
import { isStringifyOf } from "./json-text.js";
import { isPlainObject } from "./plain-object.js";

/**
 * The input a tool call's JSON `arguments` text stands for, and whether the text must be kept
 * beside it to come back byte for byte (it is not exactly the input's `JSON.stringify`, or it is
 * not a JSON object at all: a model's malformed arguments stand for an empty input).
 */
export function parseToolArguments(raw: string): { input: JsonObject; keep: boolean } {
  return readToolArguments(raw) ?? { input: {}, keep: true };
}

/**
 * {@link parseToolArguments} for a text that is a JSON object; `undefined` for any other. The
 * text is compared with the input in place ({@link isStringifyOf}), the input's JSON written
 * only when that cannot tell.
 */
export function readToolArguments(raw: string): { input: JsonObject; keep: boolean } | undefined {
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isPlainObject(input)) return undefined;
  return {
    input: input as JsonObject,
    keep: !(isStringifyOf(input, raw) ?? JSON.stringify(input) === raw),
  };
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
