import type { ContentBlock, JsonObject, JsonValue, ToolUseBlock } from "../core/message.js";
import { emptyList, textBlock, toolUseBlock } from "../core/message-shapes.js";
import { copyJson } from "../internal/json-value.js";
import { isPlainObject } from "../internal/plain-object.js";
import {
  fail,
  imageBlock,
  inside,
  isRecord,
  json,
  jsonByWalk,
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
  if (!isRecord(value)) {
    context.issues.push({
      path: [...context.path, "tool_calls", index],
      message: "must be a tool call object",
    });
    return undefined;
  }
  const { id, name, args } = value;
  const plainArgs = isPlainObject(args);
  // Where it stands, only for an issue (a context a call would cost every call).
  if (
    typeof id !== "string" ||
    id === "" ||
    typeof name !== "string" ||
    name === "" ||
    !plainArgs
  ) {
    const at = inside(context, "tool_calls", index);
    if (typeof id !== "string" || id === "") fail(at, "id", "must be a non-empty string");
    if (typeof name !== "string" || name === "") fail(at, "name", "must be a non-empty string");
    if (!plainArgs) fail(at, "args", "must be an object");
    if (typeof id !== "string" || typeof name !== "string" || !plainArgs) return undefined;
  }
  // A call holding only its name, args, id and `type: "tool_call"` goes back as LangChain
  // writes one (key order aside); any other field is kept.
  const plain = value["type"] === "tool_call" && onlyCallKeys(value);
  const copy = copyJson(args);
  return {
    id,
    name,
    args: (copy ?? jsonByWalk(inside(context, "tool_calls", index, "args"), args)) as JsonObject,
    shape: plain
      ? undefined
      : shapeOf(inside(context, "tool_calls", index), value, ["name", "args", "id"], []),
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
  if (call.shape === undefined && part === undefined)
    return toolUseBlock(call.id, call.name, call.args);
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
const NO_CALLS: readonly Call[] = [];
const NOTHING_PLACED: Set<string> = new Set();

/** Calls of one message up to which a duplicate id is looked for in the list itself. */
const FEW_CALLS = 16;

/**
 * An AI message's `tool_calls`, read in order: each malformed one or one whose id an earlier
 * one has is named (those left out: the conversion then fails).
 */
function readCalls(context: ReadContext, rawCalls: unknown): readonly Call[] {
  if (!Array.isArray(rawCalls)) {
    fail(context, "tool_calls", "must be an array");
    return NO_CALLS;
  }
  // Most AI messages make no call: they share one empty list.
  if (rawCalls.length === 0) return NO_CALLS;
  const calls: Call[] = [];
  // The ids read, once there are more than a few (a few are looked for in the list).
  let ids: Set<string> | undefined;
  // By index, here and below: a hole is named (`forEach` would skip it).
  for (let index = 0; index < rawCalls.length; index += 1) {
    const call = readCall(context, rawCalls[index], index);
    if (call === undefined) continue;
    if (ids === undefined ? hasCall(calls, call.id) : ids.has(call.id))
      fail(inside(context, "tool_calls", index), "id", "must be unique");
    calls.push(call);
    if (ids !== undefined) ids.add(call.id);
    else if (calls.length > FEW_CALLS) ids = new Set(calls.map((each) => each.id));
  }
  return calls;
}

/** Whether one of `calls` has the id `id`. */
function hasCall(calls: readonly Call[], id: string): boolean {
  for (let index = 0; index < calls.length; index += 1) if (calls[index]!.id === id) return true;
  return false;
}

/**
 * The blocks of an AI message: its content in order (a `tool_use` or `tool_call` block that
 * stands for one of `tool_calls` becomes that tool use, in place), then the tool calls the
 * content does not show. A tool use records its position among `tool_calls` (`callIndex`)
 * when that order differs from the blocks'.
 */
export function aiBlocks(context: ReadContext, message: Record_): ContentBlock[] {
  const calls = readCalls(context, message["tool_calls"] ?? []);
  const { content } = message;
  // A string content shows no call: its text, then the calls in order, in an array of its
  // final length (one pushed to from empty reserves room for 17 blocks).
  if (typeof content === "string") {
    const text = content === "" ? 0 : 1;
    const blocks: ContentBlock[] = new Array(text + calls.length);
    if (text === 1) blocks[0] = textBlock(content);
    for (let index = 0; index < calls.length; index += 1)
      blocks[text + index] = toolUse(context, calls[index]!, undefined);
    return blocks;
  }
  // By id, for the content's blocks that stand for them (of a duplicate id, the last).
  const byId = new Map<string, Call>();
  for (const call of calls) byId.set(call.id, call);
  const placed = byId.size === 0 ? NOTHING_PLACED : new Set<string>();
  const blocks: ContentBlock[] = emptyList();
  if (Array.isArray(content)) {
    for (let index = 0; index < content.length; index += 1)
      blocks.push(contentBlock(inside(context, "content", index), content[index], byId, placed));
  } else fail(context, "content", "must be a string or an array of content blocks");
  for (const call of byId.values())
    if (!placed.has(call.id)) blocks.push(toolUse(context, call, undefined));
  numberCalls(blocks, byId);
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
