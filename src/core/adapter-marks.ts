import type { JsonObject } from "./message.js";

/**
 * Whether an opaque block carries the mark of one of `adapters` (their keys in
 * `BOOKKEEPING_KEYS`): a `key:…` field such as `openai:item`, `chatCompletions:part` or
 * `gemini:content`, which the adapter that put it there reads back. A writer tells its own
 * adapter's blocks, and those of an adapter that reads only its API's blocks, by it.
 */
export function hasAdapterMark(block: JsonObject, adapters: ReadonlySet<string>): boolean {
  for (const key in block) {
    if (!Object.hasOwn(block, key)) continue;
    const colon = key.indexOf(":");
    if (colon > 0 && adapters.has(key.slice(0, colon))) return true;
  }
  return false;
}

/**
 * The families the Responses API names its types in: calls and their outputs
 * (`web_search_call`, `shell_call_output`), parts (`input_file`, `output_text`). Its writer
 * sends newer types of them; no Anthropic block type is named so, and its writer leaves them out.
 */
export const RESPONSES_TYPE_FAMILIES = /^(?:input|output)_|_(?:call|output)$/;
