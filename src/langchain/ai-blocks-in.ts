import type { ContentBlock, JsonObject, JsonValue, ToolUseBlock } from "../core/message.js";
import { emptyList, textBlock, toolUseBlock } from "../core/message-shapes.js";
import { isPlainObject } from "../internal/plain-object.js";
import {
  fail,
  imageBlock,
  inside,
  isRecord,
  json,
  opaque,
  type ReadContext,
  readTextPart,
  shapeOf,
  withFields,
} from "./blocks-in.js";

type Record_ = Record<string, unknown>;

/** One of the message's `tool_calls`, read. */
interface Call {
  id: string;
  name: string;
  args: JsonObject;
  /** The call's own fields (`type`, …) when not the default `{ name, args, id, type: "tool_call" }`. */
  shape: JsonObject | undefined;
  index: number;
}

const CALL_KEYS = ["name", "args", "id", "type"];

function readCall(context: ReadContext, value: unknown, index: number): Call | undefined {
  const at = inside(context, "tool_calls", index);
  if (!isRecord(value)) {
    context.issues.push({ path: at.path, message: "must be a tool call object" });
    return undefined;
  }
  const { id, name, args } = value;
  if (typeof id !== "string" || id === "") fail(at, "id", "must be a non-empty string");
  if (typeof name !== "string" || name === "") fail(at, "name", "must be a non-empty string");
  if (!isPlainObject(args)) fail(at, "args", "must be an object");
  if (typeof id !== "string" || typeof name !== "string" || !isPlainObject(args)) return undefined;
  // A call holding only its name, args, id and `type: "tool_call"` goes back as LangChain
  // writes one (key order aside); any other field is kept.
  const plain = value["type"] === "tool_call" && onlyCallKeys(value);
  return {
    id,
    name,
    args: json(inside(at, "args"), args) as JsonObject,
    shape: plain ? undefined : shapeOf(at, value, ["name", "args", "id"], []),
    index,
  };
}

/** Whether `value` holds no field but those of {@link CALL_KEYS} (or fields set to `undefined`). */
function onlyCallKeys(value: Record_): boolean {
  for (const key in value)
    if (Object.hasOwn(value, key) && !CALL_KEYS.includes(key) && value[key] !== undefined)
      return false;
  return true;
}

/** Whether two JSON values are equal (bounded: deeper than 64 levels counts as different). */
export function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 64 || typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((key) => (a as Record_)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record_)[key] !== undefined);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!jsonEqual((a as Record_)[key], (b as Record_)[key], depth + 1)) return false;
  }
  return true;
}

/** A tool call as a tool use; `part`, when given, is the content block that stood for it. */
function toolUse(context: ReadContext, call: Call, part: Record_ | undefined): ToolUseBlock {
  const fields: JsonObject = {};
  if (call.shape !== undefined) fields["call"] = call.shape;
  if (part !== undefined) {
    const inputKey = part["type"] === "tool_call" ? "args" : "input";
    const modelled = ["id", "name"];
    // The block's input when it says the same as the call's args; else kept as it came
    // (a streamed `input` string, say).
    if (jsonEqual(part[inputKey], call.args)) modelled.push(inputKey);
    fields["shape"] = shapeOf(context, part, modelled, []) ?? {};
  }
  return withFields(toolUseBlock(call.id, call.name, call.args), fields);
}

function thinkingBlock(context: ReadContext, part: Record_): ContentBlock | undefined {
  const reasoning = part["type"] === "reasoning";
  // Each field read once (what was checked is what is kept, a getter's second answer aside).
  const thinking = reasoning ? part["reasoning"] : part["thinking"];
  const signature = part["signature"];
  // Reasoning without a signature (a summary, a local model's <think>) has nothing to keep
  // valid: carried whole.
  if (typeof thinking !== "string" || typeof signature !== "string" || signature === "")
    return undefined;
  const key = reasoning ? "reasoning" : "thinking";
  const shape = shapeOf(context, part, [key, "signature"], ["type", "thinking", "signature"]);
  return withFields(
    { type: "thinking", thinking, signature },
    shape === undefined ? {} : { shape },
  );
}

function redactedBlock(context: ReadContext, part: Record_): ContentBlock | undefined {
  const data = part["data"];
  if (typeof data !== "string") return undefined;
  const shape = shapeOf(context, part, ["data"], ["type", "data"]);
  return withFields({ type: "redacted_thinking", data }, shape === undefined ? {} : { shape });
}

/**
 * A provider block LangChain's standard content wraps (`non_standard`), read when it is one the
 * library models: `ChatAnthropic` with `outputVersion: "v1"` writes a `redacted_thinking` block
 * so, and sends its `value` back as it is. Its shape keeps the wrapper, its data put back there.
 */
function wrappedBlock(context: ReadContext, part: Record_): ContentBlock | undefined {
  const value = part["value"];
  if (!isRecord(value) || value["type"] !== "redacted_thinking") return undefined;
  const data = value["data"];
  if (typeof data !== "string") return undefined;
  const shape = json(context, { ...part, value: { ...value, data: null } }) as JsonObject;
  return withFields({ type: "redacted_thinking", data }, { shape });
}

function contentBlock(
  context: ReadContext,
  part: unknown,
  calls: Map<string, Call>,
  placed: Set<string>,
): ContentBlock {
  if (typeof part === "string")
    return withFields({ type: "text", text: part }, { content: "string" });
  if (!isRecord(part) || typeof part["type"] !== "string") {
    context.issues.push({ path: context.path, message: "must be a content block with a type" });
    return { type: "opaque", block: {} };
  }
  const call = typeof part["id"] === "string" ? calls.get(part["id"]) : undefined;
  switch (part["type"]) {
    case "text":
      return readTextPart(context, part);
    case "thinking":
    case "reasoning":
      return thinkingBlock(context, part) ?? opaque(context, part);
    case "redacted_thinking":
      return redactedBlock(context, part) ?? opaque(context, part);
    case "non_standard":
      return wrappedBlock(context, part) ?? opaque(context, part);
    case "tool_use":
    case "tool_call":
      if (call === undefined || call.name !== part["name"] || placed.has(call.id)) break;
      placed.add(call.id);
      return toolUse(context, call, part);
    case "image":
    case "image_url":
      return imageBlock(context, part) ?? opaque(context, part);
  }
  return opaque(context, part);
}

/** The calls of an AI message without `tool_calls`, and what it placed: nothing is added to either. */
const NO_CALLS: Map<string, Call> = new Map();
const NOTHING_PLACED: Set<string> = new Set();

/**
 * The blocks of an AI message: its content in order (a `tool_use` or `tool_call` block that
 * stands for one of `tool_calls` becomes that tool use, in place), then the tool calls the
 * content does not show. A tool use records its position among `tool_calls` (`callIndex`)
 * when that order differs from the blocks'.
 */
export function aiBlocks(context: ReadContext, message: Record_): ContentBlock[] {
  const rawCalls = message["tool_calls"] ?? [];
  // Most AI messages make no call: they share one empty map and set.
  const calls =
    Array.isArray(rawCalls) && rawCalls.length === 0 ? NO_CALLS : new Map<string, Call>();
  if (Array.isArray(rawCalls)) {
    // By index, here and below: a hole is named (`forEach` would skip it).
    for (let index = 0; index < rawCalls.length; index += 1) {
      const call = readCall(context, rawCalls[index], index);
      if (call === undefined) continue;
      if (calls.has(call.id)) fail(inside(context, "tool_calls", index), "id", "must be unique");
      calls.set(call.id, call);
    }
  } else fail(context, "tool_calls", "must be an array");
  const { content } = message;
  const placed = calls.size === 0 ? NOTHING_PLACED : new Set<string>();
  const blocks: ContentBlock[] = emptyList();
  if (typeof content === "string") {
    if (content !== "") blocks.push(textBlock(content));
  } else if (Array.isArray(content)) {
    for (let index = 0; index < content.length; index += 1)
      blocks.push(contentBlock(inside(context, "content", index), content[index], calls, placed));
  } else fail(context, "content", "must be a string or an array of content blocks");
  for (const call of calls.values())
    if (!placed.has(call.id)) blocks.push(toolUse(context, call, undefined));
  numberCalls(blocks, calls);
  return blocks;
}

/** Marks each tool use with its index among `tool_calls` when the blocks list them in another order. */
function numberCalls(blocks: ContentBlock[], calls: Map<string, Call>): void {
  let next = 0;
  let inOrder = true;
  for (const block of blocks) {
    if (block.type !== "tool_use") continue;
    if (calls.get(block.id)?.index !== next) inOrder = false;
    next += 1;
  }
  if (inOrder) return;
  blocks.forEach((block, at) => {
    if (block.type !== "tool_use") return;
    const index: JsonValue = calls.get(block.id)?.index ?? null;
    const fields = (block.extra?.["langchain"] ?? {}) as JsonObject;
    blocks[at] = {
      ...block,
      extra: { ...block.extra, langchain: { ...fields, callIndex: index } },
    };
  });
}
