import type { ContentBlock, JsonObject, JsonValue, Message } from "../core/message.js";
import { isPlainObject } from "../internal/plain-object.js";
import { toolArgumentsText } from "../internal/tool-arguments.js";
import { OPENAI_KEY } from "./items-in.js";

type Record_ = Record<string, unknown>;

/**
 * The items `toResponsesInput` writes for a message a conversation is mostly made of, built
 * without the marks, spreads and writer state of the full writing: every block a text block of
 * a message item read here (its string content, or its `input_text` / `output_text` parts), a
 * `function_call`, or a `function_call_output` of text, the fields kept of each only strings
 * (and a part's empty `annotations`). `undefined` for any other message: the full writing
 * decides. `items-quick.test.ts` holds it to that.
 */
export function quickItemsOf(message: Message): JsonObject[] | undefined {
  const items: JsonObject[] = [];
  /** The parts of the message item a later part of it joins. */
  let open: JsonValue[] | undefined;
  for (const block of message.content) {
    const fields = fieldsOf(block);
    if (fields === undefined) return undefined;
    let item: JsonObject | undefined;
    if (block.type === "text") {
      const part = partOf(block.text, fields["part"], message.role);
      if (part === undefined) return undefined;
      if (fields["continues"] === true && open !== undefined && hasOnly(fields, CONTINUES_KEYS)) {
        open.push(part);
        continue;
      }
      const content = fields["content"];
      if (content === "string" && hasOnly(fields, STRING_KEYS))
        item = withStrings(fields["item"], { content: block.text });
      else if (content === undefined && hasOnly(fields, PARTS_KEYS)) {
        const parts: JsonValue[] = [part];
        item = withStrings(fields["item"], { content: parts });
        if (item === undefined) return undefined;
        items.push(item);
        open = parts;
        continue;
      }
    } else item = callOrOutput(block, fields);
    if (item === undefined) return undefined;
    items.push(item);
    open = undefined;
  }
  return items;
}

const STRING_KEYS = ["item", "content"];
const PARTS_KEYS = ["item", "part"];
const CONTINUES_KEYS = ["continues", "part"];

/** The block's Responses fields (`{}` when none); `undefined` for an opaque or odd block. */
function fieldsOf(block: ContentBlock): Record_ | undefined {
  if (block.type === "opaque") return undefined;
  const fields: unknown = block.extra?.[OPENAI_KEY];
  if (fields === undefined) return {};
  return isPlainObject(fields) ? fields : undefined;
}

function hasOnly(value: Record_, keys: readonly string[]): boolean {
  for (const key in value) if (!Object.hasOwn(value, key) || !keys.includes(key)) return false;
  return true;
}

/** A new object of `value`'s fields (all strings, else `undefined`), then `more`. */
function withStrings(value: unknown, more: JsonObject): JsonObject | undefined {
  if (!isPlainObject(value)) return undefined;
  const out: JsonObject = {};
  for (const key in value) {
    const field = value[key];
    if (!Object.hasOwn(value, key) || typeof field !== "string" || key === "__proto__")
      return undefined;
    out[key] = field;
  }
  for (const key in more) out[key] = more[key] as JsonValue;
  return out;
}

/** A text part: the kept part (strings, empty `annotations`) with its text, or the role's. */
function partOf(text: string, kept: unknown, role: Message["role"]): JsonObject | undefined {
  if (kept === undefined) {
    return role === "assistant"
      ? { type: "output_text", text, annotations: [] }
      : { type: "input_text", text };
  }
  if (!isPlainObject(kept)) return undefined;
  const { type, annotations } = kept;
  if (annotations === undefined) {
    const part = withStrings(kept, {});
    if (part !== undefined) part["text"] = text;
    return part;
  }
  // `{ type, annotations: [] }` in that order, as the reading keeps an `output_text`'s.
  const keys = Object.keys(kept);
  if (keys.length !== 2 || keys[0] !== "type" || typeof type !== "string") return undefined;
  if (!Array.isArray(annotations) || annotations.length !== 0) return undefined;
  return { type, annotations: [], text };
}

function callOrOutput(block: ContentBlock, fields: Record_): JsonObject | undefined {
  if (block.type === "tool_use") {
    if (!hasOnly(fields, ["item", "arguments"])) return undefined;
    const item = fields["item"] ?? { type: "function_call" };
    if (!isPlainObject(item) || item["type"] !== "function_call") return undefined;
    const raw = fields["arguments"] as JsonValue | undefined;
    const text = toolArgumentsText(block.input, raw);
    return withStrings(item, { call_id: block.id, name: block.name, arguments: text });
  }
  if (block.type !== "tool_result" || typeof block.content !== "string") return undefined;
  if (!hasOnly(fields, ["item"])) return undefined;
  const item = fields["item"] ?? { type: "function_call_output" };
  return withStrings(item, { call_id: block.toolUseId, output: block.content });
}
