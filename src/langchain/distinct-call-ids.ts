import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import type { ContentBlock, Message } from "../core/message.js";
import { isRecord } from "./blocks-in.js";
import { OWN_FIELDS } from "./messages-in.js";

type Record_ = Record<string, unknown>;

/** An AI message's calls (those with an id), or a tool message's result, as ours. */
interface Shape {
  /** Where the message stands in the request. */
  at: number;
  message: Message;
}

/** The `tool_calls` of an AI message (none when it is not one, or they are not a list). */
function callsOf(message: BaseMessage): readonly Record_[] {
  if (message.type !== "ai") return [];
  const calls = (message as { tool_calls?: unknown }).tool_calls;
  return Array.isArray(calls) ? (calls.filter(isRecord) as Record_[]) : [];
}

/** Whether a call has an id to send (one without cannot be sent twice). */
const hasId = (call: Record_): call is Record_ & { id: string } =>
  typeof call["id"] === "string" && call["id"] !== "";

/** Only `content` is read by `withDistinctToolIds`; the rest is the shape a message has. */
const shell = (content: ContentBlock[], role: "user" | "assistant"): Message => ({
  id: "",
  sessionId: "",
  turnId: { owner: "u", number: 0 },
  createdAt: new Date(0),
  role,
  content,
});

/** The calls and results of `messages` as ours, one message of ours for each that has any. */
function shapesOf(messages: readonly BaseMessage[]): Shape[] {
  const shapes: Shape[] = [];
  for (let at = 0; at < messages.length; at += 1) {
    const message = messages[at]!;
    if (message.type === "tool") {
      const id = (message as { tool_call_id?: unknown }).tool_call_id;
      if (typeof id !== "string" || id === "") continue;
      const block = { type: "tool_result", toolUseId: id, content: "", isError: false } as const;
      shapes.push({ at, message: shell([block], "user") });
      continue;
    }
    const blocks: ContentBlock[] = [];
    for (const call of callsOf(message))
      if (hasId(call)) blocks.push({ type: "tool_use", id: call["id"], name: "", input: {} });
    if (blocks.length > 0) shapes.push({ at, message: shell(blocks, "assistant") });
  }
  return shapes;
}

/** `message`'s own fields (those set), for a copy of it made with some changed. */
function fieldsOf(message: BaseMessage, keys: readonly string[]): Record_ {
  const source = message as unknown as Record_;
  const fields: Record_ = { content: message.content };
  for (const key of ["id", ...keys]) if (source[key] !== undefined) fields[key] = source[key];
  return fields;
}

/**
 * `value` with each element that is a record of a renamed `id` (of one of `types`, when given)
 * given its new id.
 */
function renamedList(
  value: unknown,
  renames: ReadonlyMap<string, string>,
  types?: readonly string[],
): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((part: unknown) => {
    if (!isRecord(part) || typeof part["id"] !== "string") return part;
    if (types !== undefined && !types.includes(part["type"] as string)) return part;
    const sent = renames.get(part["id"]);
    return sent === undefined ? part : { ...part, id: sent };
  });
}

/** The content blocks that stand for a call, by its id. */
const CALL_BLOCK_TYPES: readonly string[] = ["tool_use", "tool_call"];

/** An AI message with its calls sent as `sent` (each call's id, in order). */
function renamedAi(message: BaseMessage, sent: readonly ContentBlock[]): BaseMessage {
  const renames = new Map<string, string>();
  let next = 0;
  const calls = callsOf(message).map((call) => {
    if (!hasId(call)) return call;
    const block = sent[next++];
    if (block?.type !== "tool_use" || block.id === call.id) return call;
    renames.set(call.id, block.id);
    return { ...call, id: block.id };
  });
  const fields = fieldsOf(message, OWN_FIELDS.ai);
  // Where the call stands in the content too (Anthropic's `tool_use`, the standard `tool_call`)
  // and in OpenAI's raw `tool_calls`: a provider that reads it there sends the same id.
  fields["content"] = renamedList(message.content, renames, CALL_BLOCK_TYPES);
  const kwargs = message.additional_kwargs;
  if (isRecord(kwargs) && Array.isArray(kwargs["tool_calls"]))
    fields["additional_kwargs"] = {
      ...kwargs,
      tool_calls: renamedList(kwargs["tool_calls"], renames),
    };
  return new AIMessage({ ...fields, tool_calls: calls } as never);
}

/**
 * `messages` as a request sends them, every tool call's id distinct ({@link withDistinctToolIds}:
 * a call whose id an earlier, answered call had goes as `<id>_<n>`, its results with it): a
 * provider that numbers each reply's calls (`call_0` every time) would otherwise be sent an id
 * twice, which the APIs refuse. Each call is named from the calls before it alone, so every
 * request sends the one before it unchanged. `messages` themselves when no id comes twice; else
 * a copy, the messages it renamed in new objects (the agent's state keeps the provider's ids).
 */
export function withDistinctCallIds(messages: readonly BaseMessage[]): readonly BaseMessage[] {
  const shapes = shapesOf(messages);
  const ours = shapes.map((shape) => shape.message);
  const sent = withDistinctToolIds(ours);
  if (sent === ours) return messages;
  const out = messages.slice();
  for (let index = 0; index < shapes.length; index += 1) {
    const renamed = sent[index]!;
    const { at, message } = shapes[index]!;
    if (renamed === message) continue;
    const original = messages[at]!;
    const block = renamed.content[0];
    out[at] =
      original.type === "ai"
        ? renamedAi(original, renamed.content)
        : new ToolMessage({
            ...fieldsOf(original, OWN_FIELDS.tool),
            tool_call_id: block?.type === "tool_result" ? block.toolUseId : "",
          } as never);
  }
  return out;
}
