import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import {
  isSystemMessage,
  isSystemMessageBlock,
  readableMessages,
} from "../core/conversation-structure.js";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import { assertMessages } from "../core/entry-validation.js";
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from "../core/message.js";
import { setOwnProperty } from "../internal/plain-object.js";
import { isRecord, OPAQUE_BINARY_KEY, OPAQUE_MESSAGE_KEY } from "./blocks-in.js";
import {
  contentPart,
  fieldsOf,
  inContent,
  joinedText,
  resultContent,
  toolCall,
  withBinaryBack,
  withoutMarks,
} from "./blocks-out.js";
import { GENERATED_KEY, OWN_FIELDS } from "./messages-in.js";
import { markStaleFrom, showsCompaction } from "./stale-usage.js";

type Record_ = Record<string, unknown>;

/**
 * What the middleware (a thread's `ThreadSession`) or the one-call helper (`CallSources`) knows
 * of the LangChain messages ours came from, so what compaction left unchanged goes back as the
 * very same object, and a changed message keeps its original's own fields (an artifact, a class
 * in `additional_kwargs`) by reference.
 */
export interface LangChainSources {
  /** The LangChain message an unchanged message of ours (not one of tool results) came from. */
  unchanged(message: Message): BaseMessage | undefined;
  /** The tool message a result came from; `unchanged` when the block is the one made from it. */
  result(block: ToolResultBlock): { source: BaseMessage; unchanged: boolean } | undefined;
  /** The LangChain message a changed message of ours was made from, by its id. */
  original(id: string): BaseMessage | undefined;
  /**
   * Whether a rebuilt message carries our id. A one-call helper's new messages (a summary, a
   * notice) carry none: the same history then gives the same request, byte for byte. @default true
   */
  writesId?(message: Message): boolean;
}

/** The message fields kept on a message's last block. */
function messageFields(message: Message): Record_ {
  const last = message.content.at(-1);
  if (last?.type === "opaque") {
    const fields = last.block[OPAQUE_MESSAGE_KEY];
    return isRecord(fields) ? fields : {};
  }
  const { message: fields } = fieldsOf(last);
  return isRecord(fields) ? fields : {};
}

/** `fields` with the original's own fields (by reference) over the copies, when there is one. */
function withOriginal(
  fields: Record_,
  original: BaseMessage | undefined,
  keys: readonly string[],
): Record_ {
  if (original === undefined) return fields;
  const source = original as unknown as Record_;
  const out = { ...fields };
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

/** The fields every rebuilt message takes: its id (unless it had none), marks of the library. */
function commonFields(
  message: Message,
  stored: Record_,
  sources: LangChainSources | undefined,
): Record_ {
  const { content: _content, noId, ...fields } = stored;
  if (noId !== true && sources?.writesId?.(message) !== false) fields["id"] = message.id;
  if (message.generated !== undefined) {
    const kwargs = isRecord(fields["additional_kwargs"]) ? fields["additional_kwargs"] : {};
    fields["additional_kwargs"] = { ...kwargs, [GENERATED_KEY]: message.generated };
  }
  return fields;
}

/** The content of a human or AI message from its blocks (not its tool uses kept apart). */
function messageContent(blocks: readonly ContentBlock[], marker: unknown): unknown {
  if (marker === "string") return joinedText(blocks);
  if (marker === "empty") return [];
  return blocks.flatMap((block) =>
    block.type === "tool_use" && !inContent(block) ? [] : [contentPart(block)],
  );
}

function aiMessage(message: Message, sources: LangChainSources | undefined): BaseMessage {
  const stored = messageFields(message);
  const uses = message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
  const indexOf = (block: ToolUseBlock) => {
    const index = fieldsOf(block)["callIndex"];
    return typeof index === "number" ? index : 0;
  };
  const calls = uses.some((block) => typeof fieldsOf(block)["callIndex"] === "number")
    ? uses.slice().sort((a, b) => indexOf(a) - indexOf(b))
    : uses;
  const fields = withOriginal(
    commonFields(message, stored, sources),
    sources?.original(message.id),
    OWN_FIELDS.ai,
  );
  return new AIMessage({
    ...fields,
    content: messageContent(message.content, stored["content"]) as never,
    tool_calls: calls.map(toolCall) as never,
  });
}

function humanMessage(
  message: Message,
  blocks: readonly ContentBlock[],
  sources: LangChainSources | undefined,
): BaseMessage {
  const stored = messageFields({ ...message, content: blocks as ContentBlock[] });
  const fields = withOriginal(
    commonFields(message, stored, sources),
    sources?.original(message.id),
    OWN_FIELDS.human,
  );
  return new HumanMessage({
    ...fields,
    content: messageContent(blocks, stored["content"]) as never,
  });
}

/**
 * A carried system message as LangChain's: its content (each block without any adapter's
 * marks, another API's text parts as `text` blocks) and LangChain's own fields; another
 * adapter's (the AI SDK's `providerOptions`, a Responses item's `type`) are left out.
 */
function systemMessage(message: Message): BaseMessage {
  const block = message.content[0];
  const carried: Record_ = isSystemMessageBlock(block) ? block.block.message : {};
  const fields: Record_ = {};
  for (const key of ["content", "id", ...OWN_FIELDS.system])
    if (Object.hasOwn(carried, key)) fields[key] = carried[key];
  const { content } = fields;
  if (Array.isArray(content))
    fields["content"] = content.map((part: unknown) => (isRecord(part) ? systemPart(part) : part));
  return new SystemMessage(withBinaryBack(fields, carried[OPAQUE_BINARY_KEY]) as never);
}

/**
 * A system message's part as LangChain's, without any adapter's marks: another API's text part
 * (a Responses item's `input_text`) as a `text` block, which every chat model takes.
 */
function systemPart(part: Record_): unknown {
  const { type, text } = part;
  if (type !== "text" && typeof text === "string") return { type: "text", text };
  return withoutMarks(part);
}

/** A tool result as a tool message; `index` numbers the results of one message of ours. */
function toolMessage(
  message: Message,
  block: ToolResultBlock,
  index: number,
  sources: LangChainSources | undefined,
): BaseMessage {
  const found = sources?.result(block);
  if (found?.unchanged === true) return found.source;
  const { message: stored } = fieldsOf(block);
  // One object for the constructor, its keys in the order copies of it would have (`noId`,
  // our mark, left out: a `delete` would turn it into a dictionary).
  const fields: Record_ = {};
  let noId: unknown;
  if (isRecord(stored))
    for (const key of Object.keys(stored)) {
      if (key === "noId") noId = stored[key];
      else setOwnProperty(fields, key, stored[key]);
    }
  const source = found?.source as unknown as Record_ | undefined;
  if (source !== undefined)
    for (const key of OWN_FIELDS.tool) if (source[key] !== undefined) fields[key] = source[key];
  if (fields["id"] === undefined && noId !== true)
    fields["id"] = index === 0 ? message.id : `${message.id}-${index}`;
  if (block.isError) fields["status"] = "error";
  else if (fields["status"] === "error") fields["status"] = "success";
  fields["content"] = resultContent(block.content);
  fields["tool_call_id"] = block.toolUseId;
  return new ToolMessage(fields as never);
}

/**
 * Pushes one message of ours onto `out` as LangChain messages (a message of tool results as one
 * tool message each).
 */
export function pushLangChain(
  out: BaseMessage[],
  message: Message,
  sources: LangChainSources | undefined,
): void {
  if (message.role === "assistant") {
    out.push(sources?.unchanged(message) ?? aiMessage(message, sources));
    return;
  }
  if (isSystemMessage(message)) {
    out.push(sources?.unchanged(message) ?? systemMessage(message));
    return;
  }
  const { content } = message;
  let results = 0;
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index]!;
    if (block.type === "tool_result") out.push(toolMessage(message, block, results++, sources));
  }
  if (results === 0) {
    out.push(sources?.unchanged(message) ?? humanMessage(message, content, sources));
    return;
  }
  if (results === content.length) return;
  const rest = content.filter((block) => block.type !== "tool_result");
  out.push(humanMessage({ ...message, id: `${message.id}-text` }, rest, sources));
}

/**
 * Converts our messages to LangChain messages, the inverse of {@link fromLangChainMessages}: a
 * user message of tool results becomes one `ToolMessage` each, a held system message a
 * `SystemMessage`, every kept LangChain field (`extra.langchain`) returns to its place.
 * Messages written elsewhere (a summary, another adapter's) get LangChain's plain shapes, their
 * ids ours; a message the library wrote is marked in `additional_kwargs.agent_compaction`
 * (`"summary"`, `"notice"`, `"continuation"`). A call whose id an earlier, answered call had
 * (a provider numbering each reply's calls, `call_0` every time) goes with its results as
 * `<id>_<n>`: `ChatAnthropic` and `ChatOpenAI` send the ids as they are, and the APIs refuse
 * one twice. From the first message that shows a compaction (a summary, a masked result) on,
 * each reply's `usage_metadata` may count what the compaction replaced: the first LangChain
 * message made of it is marked (`additional_kwargs.agent_compaction_stale_usage`, as
 * {@link compactLangChainMessages} marks what it writes), so that helper does not measure the
 * context by it.
 *
 * @example
 * const reply = await model.invoke(toLangChainMessages(session.messages));
 * @throws {ValidationError} when a message is malformed.
 */
export function toLangChainMessages(input: readonly Message[]): BaseMessage[] {
  assertMessages(input, "messages");
  const messages = withDistinctToolIds(readableMessages(input));
  const out: BaseMessage[] = [];
  let compacted = -1;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (compacted === -1 && showsCompaction(message)) compacted = out.length;
    pushLangChain(out, message, undefined);
  }
  // From the first sign of a compaction on, a reply's usage may count what it replaced.
  if (compacted !== -1) markStaleFrom(out, compacted);
  return out;
}
