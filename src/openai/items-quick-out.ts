import type {
  ContentBlock,
  JsonObject,
  JsonValue,
  Message,
  ToolUseBlock,
} from "../core/message.js";
import { emptyList, listOf } from "../core/message-shapes.js";
import { HAS_OWN, hasOnlyKeys, isPlainObject } from "../internal/plain-object.js";
import { toolArgumentsText } from "../internal/tool-arguments.js";
import { OPENAI_KEY } from "./items-in.js";
import { keysAre } from "./items-quick.js";

type Record_ = Record<string, unknown>;

/**
 * Pushes onto `items` the items `toResponsesInput` writes for a message a conversation is
 * mostly made of, built without the marks, spreads and writer state of the full writing: every
 * block a text block of a message item read here (its string content, or its `input_text` /
 * `output_text` parts) or of no Responses fields (the library's own: texts in a row join one
 * message item of the role), a `function_call`, or a `function_call_output` of text, the fields
 * kept of each only strings (and a part's empty `annotations`). `false` for any other message (and
 * `items` as they were): the full writing decides. `items-quick.test.ts` holds it to that.
 */
export function pushQuickItems(message: Message, items: JsonObject[]): boolean {
  const start = items.length;
  if (pushItems(message, items)) return true;
  items.length = start;
  return false;
}

function pushItems(message: Message, items: JsonObject[]): boolean {
  /** The parts of the message item a later part of it joins. */
  let open: JsonValue[] | undefined;
  /** Whether that item was made here, for texts of no Responses fields (the next such joins it). */
  let made = false;
  const { content, role } = message;
  // By index: a for-of left early keeps its iterator (garbage on every first sight).
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index]!;
    const fields = fieldsOf(block);
    if (fields === undefined) return false;
    let item: JsonObject | undefined;
    if (block.type === "text") {
      const part = partOf(block.text, fields["part"], role);
      if (part === undefined) return false;
      if (
        fields["continues"] === true &&
        open !== undefined &&
        hasOnlyKeys(fields, CONTINUES_KEYS)
      ) {
        open.push(part);
        continue;
      }
      if (hasOnlyKeys(fields, NO_KEYS)) {
        // The library's own text (a user's request, a summary): a message item of the role.
        if (open !== undefined && made) open.push(part);
        else {
          open = listOf<JsonValue>(part);
          made = true;
          items.push({ ...WIRE.message, type: "message", role, content: open });
        }
        continue;
      }
      made = false;
      const kind = fields["content"];
      if (kind === "string" && hasOnlyKeys(fields, STRING_KEYS)) {
        item = messageItem(fields["item"], block.text);
      } else if (kind === undefined && hasOnlyKeys(fields, PARTS_KEYS)) {
        open = listOf<JsonValue>(part);
        item = messageItem(fields["item"], open);
        if (item === undefined) return false;
        items.push(item);
        continue;
      }
    } else item = callOrOutput(block, fields);
    if (item === undefined) return false;
    items.push(item);
    open = undefined;
  }
  return true;
}

const NO_KEYS: readonly string[] = [];
const STRING_KEYS = ["item", "content"];
const PARTS_KEYS = ["item", "part"];
const CONTINUES_KEYS = ["continues", "part"];
const CALL_KEYS = ["item", "arguments"];
const OUTPUT_KEYS = ["item"];

/** The block's Responses fields (`{}` when none); `undefined` for an opaque or odd block. */
function fieldsOf(block: ContentBlock): Record_ | undefined {
  if (block.type === "opaque") return undefined;
  const fields: unknown = block.extra?.[OPENAI_KEY];
  if (fields === undefined) return {};
  return isPlainObject(fields) ? fields : undefined;
}

const TYPE = ["type"];
const TYPE_ROLE = ["type", "role"];

/** The items and parts written, each a spread of its shape, every field set (see `core/message-shapes.ts`). */
const WIRE = {
  type: { type: "" },
  typeRole: { type: "", role: "" },
  message: { type: "", role: "", content: undefined },
  inputText: { type: "input_text", text: "" },
  outputText: { type: "output_text", text: "", annotations: undefined },
  keptOutputText: { type: "", annotations: undefined, text: "" },
  output: { type: "", call_id: "", output: "" },
  call: { type: "function_call", call_id: "", name: "", arguments: "" },
} as const;

/** A new object of `value`'s fields (all strings, else `undefined`), in its key order. */
function stringsOf(value: unknown): JsonObject | undefined {
  if (!isPlainObject(value)) return undefined;
  // What the reading keeps of the common items, built whole (a keyed store per key costs more).
  const { type, role } = value;
  if (typeof type === "string") {
    if (keysAre(value, TYPE)) return { ...WIRE.type, type };
    if (typeof role === "string" && keysAre(value, TYPE_ROLE))
      return { ...WIRE.typeRole, type, role };
  }
  const out: JsonObject = {};
  for (const key in value) {
    const field = value[key];
    if (!HAS_OWN.call(value, key) || typeof field !== "string" || key === "__proto__")
      return undefined;
    out[key] = field;
  }
  return out;
}

/** A text part: the kept part (strings, empty `annotations`) with its text, or the role's. */
function partOf(text: string, kept: unknown, role: Message["role"]): JsonObject | undefined {
  if (kept === undefined) {
    return role === "assistant"
      ? { ...WIRE.outputText, text, annotations: emptyList() }
      : { ...WIRE.inputText, text };
  }
  if (!isPlainObject(kept)) return undefined;
  const { type, annotations } = kept;
  if (annotations === undefined) {
    const part = stringsOf(kept);
    if (part !== undefined) part["text"] = text;
    return part;
  }
  // `{ type, annotations: [] }` in that order, as the reading keeps an `output_text`'s.
  let count = 0;
  for (const key in kept) {
    if (!HAS_OWN.call(kept, key) || key !== (count === 0 ? "type" : "annotations"))
      return undefined;
    count += 1;
  }
  if (count !== 2 || typeof type !== "string") return undefined;
  if (!Array.isArray(annotations) || annotations.length !== 0) return undefined;
  return { ...WIRE.keptOutputText, type, annotations: emptyList(), text };
}

/**
 * A message item: the kept item's strings, then `content`; the common `{ type, role }` built
 * whole from its shape (a field added to an object made smaller costs a new property store).
 */
function messageItem(kept: unknown, content: JsonValue): JsonObject | undefined {
  if (isPlainObject(kept)) {
    const { type, role } = kept;
    if (typeof type === "string" && typeof role === "string" && keysAre(kept, TYPE_ROLE))
      return { ...WIRE.message, type, role, content };
  }
  const item = stringsOf(kept);
  if (item !== undefined) item["content"] = content;
  return item;
}

/** The kept item's `type` when it is all it kept (a string); `undefined` for any other. */
function typeOnly(kept: unknown): string | undefined {
  if (!isPlainObject(kept)) return undefined;
  const { type } = kept;
  return typeof type === "string" && keysAre(kept, TYPE) ? type : undefined;
}

function callOrOutput(block: ContentBlock, fields: Record_): JsonObject | undefined {
  if (block.type === "tool_use") return callItem(block, fields);
  if (block.type !== "tool_result" || typeof block.content !== "string") return undefined;
  if (!hasOnlyKeys(fields, OUTPUT_KEYS)) return undefined;
  const kept = fields["item"];
  const { toolUseId, content } = block;
  // The common shapes built whole, of their final fields.
  const type = kept === undefined ? "function_call_output" : typeOnly(kept);
  if (type !== undefined) return { ...WIRE.output, type, call_id: toolUseId, output: content };
  const item = stringsOf(kept);
  if (item === undefined) return undefined;
  item["call_id"] = toolUseId;
  item["output"] = content;
  return item;
}

function callItem(block: ToolUseBlock, fields: Record_): JsonObject | undefined {
  if (!hasOnlyKeys(fields, CALL_KEYS)) return undefined;
  const kept = fields["item"];
  const type = kept === undefined ? "function_call" : typeOnly(kept);
  const item = type === undefined ? stringsOf(kept) : undefined;
  if ((type ?? item?.["type"]) !== "function_call") return undefined;
  const text = toolArgumentsText(block.input, fields["arguments"] as JsonValue | undefined);
  if (item === undefined)
    return { ...WIRE.call, call_id: block.id, name: block.name, arguments: text };
  item["call_id"] = block.id;
  item["name"] = block.name;
  item["arguments"] = text;
  return item;
}
