import type {
  ContentBlock,
  JsonObject,
  Message,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnId,
} from "./message.js";

/**
 * Messages, blocks and turn ids as the conversions make them, one or more for each message of
 * every request: each is a spread of a shape, `{ ...TEXT, text }`, never an object literal
 * with fields. V8 gives each such literal an allocation site, and once the objects of a site
 * outlive a young-generation collection (one that falls in a long conversion, or while a
 * request awaits its model), it makes every later object of that site in the old generation,
 * where each request's garbage then waits for a full collection. A spread has no allocation
 * site: with these, the one-call helpers take about half the time they took (`npm run bench`,
 * part 6). The writers of each adapter's wire format make their objects the same way. Arrays
 * too: `[x]`, `[]` and `new Array(0)` have sites; {@link listOf}, {@link emptyList} and
 * `new Array(length)`, filled, do not. `test/code/young-objects.test.ts` asks V8 whether the
 * conversions' objects stay young.
 *
 * A shape's placeholders are of the type the field then holds ("", `false`, 0), `undefined`
 * for an object: no object is shared, and a field left out fails the type check.
 */

const TEXT: TextBlock = { type: "text", text: "" };
const TEXT_WITH_EXTRA = { type: "text", text: "", extra: undefined } as const;
const THINKING: ThinkingBlock = { type: "thinking", thinking: "", signature: "" };
const REDACTED_THINKING: RedactedThinkingBlock = { type: "redacted_thinking", data: "" };
const TOOL_USE = { type: "tool_use", id: "", name: "", input: undefined } as const;
const TOOL_USE_WITH_EXTRA = { ...TOOL_USE, extra: undefined } as const;
const TOOL_RESULT = {
  type: "tool_result",
  toolUseId: "",
  content: undefined,
  isError: false,
} as const;
const TOOL_RESULT_WITH_EXTRA = { ...TOOL_RESULT, extra: undefined } as const;
const SUMMARIZED_RESULT = { ...TOOL_RESULT, compactSummary: "" } as const;
const SUMMARIZED_RESULT_WITH_EXTRA = { ...SUMMARIZED_RESULT, extra: undefined } as const;
const MESSAGE = {
  role: "user" as Message["role"],
  id: "",
  sessionId: "",
  turnId: undefined,
  createdAt: undefined,
  content: undefined,
};
const GENERATED_MESSAGE = { ...MESSAGE, generated: undefined as Message["generated"] };
const TURN_ID: TurnId = { owner: "", number: 0 };

/** A text block of `text`, and `extra` when given. */
export function textBlock(text: string, extra?: JsonObject): TextBlock {
  return extra === undefined ? { ...TEXT, text } : { ...TEXT_WITH_EXTRA, text, extra };
}

/** A thinking block of these fields alone. */
export function thinkingBlock(thinking: string, signature: string): ThinkingBlock {
  return { ...THINKING, thinking, signature };
}

/** A redacted thinking block of `data` alone. */
export function redactedThinkingBlock(data: string): RedactedThinkingBlock {
  return { ...REDACTED_THINKING, data };
}

/** A tool use of these fields, and `extra` when given. */
export function toolUseBlock(
  id: string,
  name: string,
  input: JsonObject,
  extra?: JsonObject,
): ToolUseBlock {
  return extra === undefined
    ? { ...TOOL_USE, id, name, input }
    : { ...TOOL_USE_WITH_EXTRA, id, name, input, extra };
}

/** A tool result of these fields, and `extra` when given. */
export function toolResultBlock(
  toolUseId: string,
  content: ToolResultBlock["content"],
  isError: boolean,
  extra?: JsonObject,
): ToolResultBlock {
  return extra === undefined
    ? { ...TOOL_RESULT, toolUseId, content, isError }
    : { ...TOOL_RESULT_WITH_EXTRA, toolUseId, content, isError, extra };
}

/**
 * `block` holding `content` instead, made from a shape when it holds a tool result's fields alone
 * (`compactSummary` and `extra` when set): a spread of the block (`{ ...block }`) was a sixth of
 * a masking pass over a conversation never seen. A block with fields of the caller's own (the
 * schema lets them through `compact`) is copied whole.
 */
export function withResultContent(
  block: ToolResultBlock,
  content: ToolResultBlock["content"],
): ToolResultBlock {
  const { toolUseId, isError, compactSummary, extra } = block;
  const fields = 4 + (compactSummary === undefined ? 0 : 1) + (extra === undefined ? 0 : 1);
  if (!holdsFields(block, fields)) return copiedWith(block, content);
  if (compactSummary === undefined) return toolResultBlock(toolUseId, content, isError, extra);
  return extra === undefined
    ? { ...SUMMARIZED_RESULT, toolUseId, content, isError, compactSummary }
    : { ...SUMMARIZED_RESULT_WITH_EXTRA, toolUseId, content, isError, compactSummary, extra };
}

/**
 * `message` holding `content` instead: its fields as a message has them (`generated` when set),
 * made from a shape, as {@link withResultContent} for the same reason.
 */
export function withMessageContent(message: Message, content: ContentBlock[]): Message {
  const { role, id, sessionId, turnId, createdAt, generated } = message;
  if (!holdsFields(message, generated === undefined ? 6 : 7)) return copiedWith(message, content);
  if (generated === undefined) return messageOf(role, id, sessionId, turnId, createdAt, content);
  return { ...GENERATED_MESSAGE, role, id, sessionId, turnId, createdAt, content, generated };
}

/** `object` copied whole (fields of a caller's own too), holding `content` instead. */
function copiedWith<T extends { content: unknown }>(object: T, content: T["content"]): T {
  const copy = { ...object };
  copy.content = content;
  return copy;
}

/** Whether `object` has `count` enumerable fields: those its type names, none of a caller's own. */
function holdsFields(object: object, count: number): boolean {
  let fields = 0;
  for (const _field in object) fields += 1;
  return fields === count;
}

/** A message of these fields alone (no `generated`). */
export function messageOf(
  role: Message["role"],
  id: string,
  sessionId: string,
  turnId: TurnId,
  createdAt: Date,
  content: ContentBlock[],
): Message {
  return { ...MESSAGE, role, id, sessionId, turnId, createdAt, content };
}

/**
 * `{ [key]: value }`, made field by field, without a literal's allocation site: an object of
 * one field named by a constant of the library's own (a provider's `extra` key), never by
 * input (`__proto__` would set the prototype).
 */
export function keyed<V>(key: string, value: V): Record<string, V> {
  const object: Record<string, V> = {};
  object[key] = value;
  return object;
}

/** Never handed out, only copied: not frozen, as a frozen array's copy takes four times as long. */
const NO_ITEMS: readonly never[] = [];

/** A new empty array (`[]` and `new Array(0)` have allocation sites too). */
export function emptyList<T>(): T[] {
  return NO_ITEMS.slice();
}

/** An array of `item` alone (an array literal has an allocation site too). */
export function listOf<T>(item: T): T[] {
  const list: T[] = new Array(1);
  list[0] = item;
  return list;
}

/** A turn id. */
export function turnIdOf(owner: string, number: number): TurnId {
  return { ...TURN_ID, owner, number };
}
