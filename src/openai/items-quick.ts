/*
 * The quick reading: `itemBlocks`' blocks for the items a conversation is mostly made of, built from the item's
 * strings directly (without the field lists, the JSON checks and the spreads of the full
 * reading): a `message` of role `user` or `assistant` whose content is a string or
 * `input_text` / `output_text` parts (an `output_text` with no annotations); a `function_call`
 * whose `arguments` are a JSON object and a `function_call_output` of strings. Each may have an
 * `id` and a `status` of strings. `undefined` for anything else, any other field or value among
 * them: the full reading then decides (and names the issues). `items-quick.test.ts` holds it
 * to that.
 */
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import type { ContentBlock, JsonObject, ToolResultBlock, ToolUseBlock } from "../core/message.js";
import {
  emptyList,
  keyed,
  listOf,
  textBlock,
  toolResultBlock,
  toolUseBlock,
} from "../core/message-shapes.js";
import { estimateBlockTokens, estimateToolUseTokens } from "../core/tokens.js";
import { freezeDeeply } from "../internal/frozen.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { HAS_OWN, isPlainObject } from "../internal/plain-object.js";
import { readToolArguments } from "../internal/tool-arguments.js";

type Record_ = Record<string, unknown>;

/** The fields an item the quick reading takes may have beside its own, each a string. */
const ITEM_STRING_KEYS = ["type", "role", "id", "status"];
const MESSAGE_KEYS = [...ITEM_STRING_KEYS, "content"];
const CALL_KEYS = ["type", "id", "status", "call_id", "name", "arguments"];
const CALL_OWN = ["call_id", "name", "arguments"];
const OUTPUT_KEYS = ["type", "id", "status", "call_id", "output"];
const OUTPUT_OWN = ["call_id", "output"];
const MESSAGE_OWN = ["content"];
/** The keys, in order, of the items most conversations are made of (read without a keyed store). */
const MESSAGE_SHAPE = ["type", "role", "content"];
const CALL_SHAPE = ["type", "call_id", "name", "arguments"];
const OUTPUT_SHAPE = ["type", "call_id", "output"];
/** The item's `type` and `role` as the reader read them (each field is read once). */
interface ReadFields {
  type: unknown;
  role?: unknown;
}

/** Whether `item`'s keys are `keys`, in that order, all its own. */
export function keysAre(item: Record_, keys: readonly string[]): boolean {
  let index = 0;
  for (const key in item) {
    if (key !== keys[index] || !HAS_OWN.call(item, key)) return false;
    index += 1;
  }
  return index === keys.length;
}

/** What the reading makes, each a spread of its shape, every field set (see `core/message-shapes.ts`). */
const SHAPE = {
  type: { type: "" },
  typeAndRole: { type: "", role: "" },
  item: { item: undefined },
  itemAndPart: { item: undefined, part: undefined },
  itemAndArguments: { item: undefined, arguments: "" },
  stringContent: { item: undefined, content: "string" },
  continuesPart: { continues: true, part: undefined },
  outputText: { type: "", annotations: undefined },
} as const;

/** The `extra` of a block read from an item: its OpenAI marks under `openai`. */
const openaiExtra = (marks: JsonObject): JsonObject => keyed(BOOKKEEPING_KEYS.openai, marks);

/**
 * The `extra` of the commonest blocks, the same for every item of their form (`{ type,
 * call_id, output }`, `{ type, call_id, name, arguments }` of arguments kept as JSON,
 * `{ type: "message", role, content }`, its parts `input_text` or `output_text` of no
 * annotations): one frozen object each, shared, rather than four made per block.
 */
const COMMON_EXTRA = {
  output: freezeDeeply(openaiExtra({ item: { type: "function_call_output" } })),
  call: freezeDeeply(openaiExtra({ item: { type: "function_call" } })),
  string: {
    user: freezeDeeply(openaiExtra({ item: { type: "message", role: "user" }, content: "string" })),
    assistant: freezeDeeply(
      openaiExtra({ item: { type: "message", role: "assistant" }, content: "string" }),
    ),
  },
  firstPart: {
    user: freezeDeeply(openaiExtra({ item: { type: "message", role: "user" } })),
    assistant: freezeDeeply(openaiExtra({ item: { type: "message", role: "assistant" } })),
  },
  /** An `output_text` part `{ type, text, annotations: [] }` heading its item. */
  firstOutputText: {
    user: freezeDeeply(
      openaiExtra({ item: { type: "message", role: "user" }, part: outputTextPart() }),
    ),
    assistant: freezeDeeply(
      openaiExtra({ item: { type: "message", role: "assistant" }, part: outputTextPart() }),
    ),
  },
  continues: freezeDeeply(openaiExtra({ continues: true })),
  continuesOutputText: freezeDeeply(openaiExtra({ continues: true, part: outputTextPart() })),
};

function outputTextPart(): JsonObject {
  return { type: "output_text", annotations: [] };
}

/**
 * The item's fields but `own` (a new object of its strings, in its key order; its `type` and
 * `role` those `read`), or `undefined` when it has a key not among `keys` or a field not among
 * `own` that is not a string.
 */
function itemFields(
  item: Record_,
  keys: readonly string[],
  own: readonly string[],
  read: ReadFields,
): JsonObject | undefined {
  const fields: JsonObject = {};
  for (const key in item) {
    if (!HAS_OWN.call(item, key) || !keys.includes(key)) return undefined;
    if (own.includes(key)) continue;
    const value = key === "type" ? read.type : key === "role" ? read.role : item[key];
    if (typeof value !== "string") return undefined;
    fields[key] = value;
  }
  return fields;
}

/**
 * A `message` item (of role `user` or `assistant`) read quickly, of the `type`, `role` and
 * `content` read from it (each field of an item is read once: what is checked is what is kept,
 * and a getter is not asked twice). An assistant's `input_text` part is left to the full
 * reading, which marks the item as not given back as it came.
 */
export function quickMessageBlocks(
  item: Record_,
  type: unknown,
  role: unknown,
  content: unknown,
): ContentBlock[] | undefined {
  if (role !== "user" && role !== "assistant") return undefined;
  const shaped = typeof type === "string" && keysAre(item, MESSAGE_SHAPE);
  // The commonest item: its fields are the shared extras' (see COMMON_EXTRA).
  const common = shaped && type === "message";
  const fields = common
    ? undefined
    : shaped
      ? { ...SHAPE.typeAndRole, type, role }
      : itemFields(item, MESSAGE_KEYS, MESSAGE_OWN, { type, role });
  if (!common && fields === undefined) return undefined;
  if (typeof content === "string") {
    const extra =
      fields === undefined
        ? COMMON_EXTRA.string[role]
        : openaiExtra({ ...SHAPE.stringContent, item: fields });
    return listOf<ContentBlock>(textBlock(content, extra));
  }
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const blocks: ContentBlock[] = new Array(content.length);
  for (let index = 0; index < content.length; index += 1) {
    const first = index === 0 ? (fields ?? role) : undefined;
    const block = quickPart(content[index], first, role);
    if (block === undefined) return undefined;
    blocks[index] = block;
  }
  return blocks;
}

/**
 * An `input_text` part `{ type, text }` (not of an assistant's item), or an `output_text` one
 * with no annotations; marked with the item's `fields` when it is the item's first part (its
 * role alone: the commonest item's), else as continuing it.
 */
function quickPart(
  part: unknown,
  fields: JsonObject | "user" | "assistant" | undefined,
  role: "user" | "assistant",
): ContentBlock | undefined {
  if (!isPlainObject(part)) return undefined;
  const { type, text } = part;
  if (typeof text !== "string") return undefined;
  let count = 0;
  let typeFirst = false;
  for (const key in part) {
    if (!HAS_OWN.call(part, key)) return undefined;
    if (count === 0) typeFirst = key === "type";
    count += 1;
  }
  if (type === "input_text" && count === 2 && role === "user") {
    if (fields === undefined) return textBlock(text, COMMON_EXTRA.continues);
    if (typeof fields === "string") return textBlock(text, COMMON_EXTRA.firstPart[fields]);
    return textBlock(text, openaiExtra({ ...SHAPE.item, item: fields }));
  }
  if (type !== "output_text") return undefined;
  let kept: JsonObject;
  if (count === 2) kept = { ...SHAPE.type, type };
  else if (count === 3 && typeFirst && isEmptyArray(part["annotations"])) {
    // The part's fields but its text, in its key order (`type` first here, or left to the full).
    if (fields === undefined) return textBlock(text, COMMON_EXTRA.continuesOutputText);
    if (typeof fields === "string") return textBlock(text, COMMON_EXTRA.firstOutputText[fields]);
    kept = { ...SHAPE.outputText, type, annotations: emptyList() };
  } else return undefined;
  const item =
    typeof fields === "string" ? { ...SHAPE.typeAndRole, type: "message", role: fields } : fields;
  // Each mark made whole from its shape (a field added later costs a new property store).
  const marks: JsonObject =
    item === undefined
      ? { ...SHAPE.continuesPart, part: kept }
      : { ...SHAPE.itemAndPart, item, part: kept };
  return textBlock(text, openaiExtra(marks));
}

function isEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/** Where {@link quickCallBlock} adds the estimate of the block it reads. */
export interface CallEstimate {
  tokens: number;
}

/**
 * A `function_call` item read quickly, of the `type` read from it; the block's estimate
 * (`estimateBlockTokens`') added to `estimate`.
 */
export function quickCallBlock(
  item: Record_,
  type: unknown,
  estimate: CallEstimate,
): ToolUseBlock | undefined {
  const { call_id: id, name, arguments: raw } = item;
  if (!isNonEmptyString(id) || !isNonEmptyString(name) || typeof raw !== "string") return undefined;
  // The commonest item: no object made for its fields (see COMMON_EXTRA).
  const common = type === "function_call" && keysAre(item, CALL_SHAPE);
  const fields = common ? undefined : itemFields(item, CALL_KEYS, CALL_OWN, { type });
  if (!common && fields === undefined) return undefined;
  const read = readToolArguments(raw);
  if (read === undefined) return undefined;
  if (!read.keep && (fields === undefined || isOnly(fields, "function_call"))) {
    const block = toolUseBlock(id, name, read.input, COMMON_EXTRA.call);
    // The arguments are the input's JSON: with nothing in them escaped, their length is the
    // input's as the estimate measures it (`jsonLength`), which need not walk the input again.
    estimate.tokens += raw.includes("\\")
      ? estimateBlockTokens(block)
      : estimateToolUseTokens(id, name, raw.length);
    return block;
  }
  const kept = fields ?? { ...SHAPE.type, type: "function_call" };
  const marks: JsonObject = read.keep
    ? { ...SHAPE.itemAndArguments, item: kept, arguments: raw }
    : { ...SHAPE.item, item: kept };
  const block = toolUseBlock(id, name, read.input, openaiExtra(marks));
  estimate.tokens += estimateBlockTokens(block);
  return block;
}

/** A `function_call_output` item (its output a string) read quickly, of the `type` read from it. */
export function quickOutputBlock(item: Record_, type: unknown): ToolResultBlock | undefined {
  const { call_id: toolUseId, output } = item;
  if (!isNonEmptyString(toolUseId) || typeof output !== "string") return undefined;
  const common = type === "function_call_output" && keysAre(item, OUTPUT_SHAPE);
  const fields = common ? undefined : itemFields(item, OUTPUT_KEYS, OUTPUT_OWN, { type });
  if (!common && fields === undefined) return undefined;
  const extra =
    fields === undefined || isOnly(fields, "function_call_output")
      ? COMMON_EXTRA.output
      : openaiExtra({ ...SHAPE.item, item: fields });
  return toolResultBlock(toolUseId, output, false, extra);
}

/** Whether `fields` are `{ type }` of that type alone. */
function isOnly(fields: JsonObject, type: string): boolean {
  if (fields["type"] !== type) return false;
  for (const key in fields) if (key !== "type") return false;
  return true;
}
