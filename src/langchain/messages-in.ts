import type { BaseMessage } from "@langchain/core/messages";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import {
  type ContentBlock,
  type GeneratedKind,
  type JsonObject,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type ToolResultBlock,
  type TurnId,
} from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { rememberBuilt } from "../core/message-memo.js";
import { keyed, listOf, textBlock, toolResultBlock } from "../core/message-shapes.js";
import { checkConversionOptions, checkMadeByOptions } from "../internal/conversion-options.js";
import { freezeDeeply } from "../internal/frozen.js";
import { isPlainObject, spreadWith } from "../internal/plain-object.js";
import { aiBlocks } from "./ai-blocks-in.js";
import {
  contentParts,
  fail,
  isRecord,
  jsonWithBinary,
  jsonWithout,
  LANGCHAIN_KEY,
  OPAQUE_MESSAGE_KEY,
  type ReadContext,
  withFields,
} from "./blocks-in.js";
import { MessagesBuilder } from "./messages-builder.js";

/** Options of {@link fromLangChainMessages}. */
export interface FromLangChainMessagesOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`, read once per call: every message gets that instant. @default the wall clock */
  clock?: Clock;
}

/** What the middleware's conversion adds to the public options. */
export interface ConversionSettings extends FromLangChainMessagesOptions {
  /** The turn of the message before the first (a conversation converted a part at a time). */
  after?: TurnId;
  /**
   * The messages' own fields (`additional_kwargs`, `usage_metadata`, an artifact, …) are not
   * copied: the middleware and the one-call helper give a message back with its original's
   * fields, by reference, so they need not be JSON either.
   */
  fieldsFromSources?: boolean;
}

type Record_ = Record<string, unknown>;

/** The `additional_kwargs` key that marks a message the library wrote. */
export const GENERATED_KEY = "agent_compaction";
const GENERATED_KINDS: readonly string[] = ["summary", "continuation", "notice"];

/** The message types converted, by LangChain's `type` (chunks have the same). */
export type Kind = "human" | "ai" | "tool" | "system";
const KINDS: readonly string[] = ["human", "ai", "tool", "system"];

/** The fields a message carries besides its content (and, per kind, its modelled ones). */
export const OWN_FIELDS: Record<Kind, readonly string[]> = {
  human: ["name", "additional_kwargs", "response_metadata"],
  system: ["name", "additional_kwargs", "response_metadata"],
  ai: ["name", "additional_kwargs", "response_metadata", "usage_metadata", "invalid_tool_calls"],
  tool: ["id", "name", "status", "artifact", "metadata", "additional_kwargs", "response_metadata"],
};

/**
 * Whether a field holds nothing worth keeping (the constructors' defaults: `{}`, `[]`). Only a
 * plain object counts: a `Map`, a `Date` or a class instance has no own keys either, but holds
 * something, which the JSON check then refuses.
 */
function isDefault(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** A message's own fields as JSON (what is not JSON is refused); none with `fieldsFromSources`. */
function ownFields(
  context: ReadContext,
  message: Record_,
  kind: Kind,
  fieldsFromSources: boolean,
): JsonObject {
  if (fieldsFromSources) return {};
  const fields: Record_ = {};
  for (const key of OWN_FIELDS[kind]) if (!isDefault(message[key])) fields[key] = message[key];
  return jsonWithout(context, fields, []) ?? {};
}

/** The kind a message was written as by the library, from its `additional_kwargs`. */
function generatedOf(message: Record_): GeneratedKind | undefined {
  const kwargs = message["additional_kwargs"];
  const kind = isRecord(kwargs) ? kwargs[GENERATED_KEY] : undefined;
  return typeof kind === "string" && GENERATED_KINDS.includes(kind)
    ? (kind as GeneratedKind)
    : undefined;
}

/** Whether `fields` is `{ content: "string" }` and nothing else. */
function isStringContent(fields: JsonObject): boolean {
  let keys = 0;
  for (const _key in fields) keys += 1;
  return keys === 1 && fields["content"] === "string";
}

/** Whether `fields` has no key (without the array `Object.keys` makes, once a message). */
function isEmpty(fields: JsonObject): boolean {
  for (const _key in fields) return false;
  return true;
}

/**
 * The last block's fields when all its message keeps is that its content was a string (the
 * commonest message: the fields its original holds come back from it by reference), shared by
 * every such block: frozen, never written into.
 */
const STRING_CONTENT = freezeDeeply({
  extra: { [LANGCHAIN_KEY]: { message: { content: "string" } } },
});

/** Keeps `fields` on the last block, where the way back finds them. */
function keepOnLast(blocks: ContentBlock[], fields: JsonObject): void {
  const last = blocks.length - 1;
  const block = blocks[last];
  if (block === undefined || isEmpty(fields)) return;
  if (block.type !== "opaque" && block.extra === undefined && isStringContent(fields)) {
    blocks[last] = spreadWith(block, STRING_CONTENT) as ContentBlock;
    return;
  }
  if (block.type === "opaque") {
    blocks[last] = {
      type: "opaque",
      block: spreadWith(block.block, { [OPAQUE_MESSAGE_KEY]: fields }),
    };
    return;
  }
  const own = (block.extra?.[LANGCHAIN_KEY] ?? {}) as JsonObject;
  const extra = spreadWith(block.extra ?? {}, {
    [LANGCHAIN_KEY]: spreadWith(own, { message: fields }),
  });
  blocks[last] = spreadWith(block, { extra }) as ContentBlock;
}

/** The blocks of a human or AI message, its own fields on the last. */
function messageBlocks(
  context: ReadContext,
  message: Record_,
  kind: "human" | "ai",
  fieldsFromSources: boolean,
): ContentBlock[] {
  const fields = ownFields(context, message, kind, fieldsFromSources);
  const { content } = message;
  if (typeof content === "string") fields["content"] = "string";
  let blocks: ContentBlock[];
  if (kind === "ai") blocks = aiBlocks(context, message);
  else if (typeof content === "string") blocks = listOf<ContentBlock>(textBlock(content));
  else if (Array.isArray(content)) blocks = contentParts(context, content);
  else {
    fail(context, "content", "must be a string or an array of content blocks");
    blocks = [];
  }
  // A message holds at least one block: empty content is an empty text, marked.
  if (blocks.length === 0) {
    blocks.push({ type: "text", text: "" });
    if (fields["content"] === undefined) fields["content"] = "empty";
  }
  keepOnLast(blocks, fields);
  return blocks;
}

/** A tool message as a tool result: its own fields (its id too) kept on the block. */
function resultBlock(
  context: ReadContext,
  message: Record_,
  fieldsFromSources: boolean,
  noId: boolean,
): ToolResultBlock {
  const fields = ownFields(context, message, "tool", fieldsFromSources);
  if (noId) fields["noId"] = true;
  const toolUseId = message["tool_call_id"];
  if (typeof toolUseId !== "string" || toolUseId === "")
    fail(context, "tool_call_id", "must be a non-empty string");
  const { content } = message;
  let output: ToolResultBlock["content"] = "";
  if (typeof content === "string") output = content;
  else if (Array.isArray(content)) output = contentParts(context, content);
  else fail(context, "content", "must be a string or an array of content blocks");
  const block = toolResultBlock(
    typeof toolUseId === "string" ? toolUseId : "",
    output,
    message["status"] === "error",
  );
  return isEmpty(fields) ? block : withFields(block, keyed("message", fields));
}

/** A system message as the block that carries it, verbatim. */
function systemBlock(context: ReadContext, message: Record_): ContentBlock {
  const fields: Record_ = { role: "system", content: message["content"] };
  for (const key of ["id", ...OWN_FIELDS.system])
    if (!isDefault(message[key])) fields[key] = message[key];
  // Binary data in its blocks is carried as base64, where it stood noted on the message.
  const carried = jsonWithBinary(context, fields);
  return { type: "opaque", block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: carried } };
}

/** The LangChain message type of `value` (`human`, `ai`, `tool`, `system`), or `undefined`. */
function kindOf(value: unknown): Kind | undefined {
  if (!isRecord(value)) return undefined;
  const type = value["type"];
  return typeof type === "string" && KINDS.includes(type) ? (type as Kind) : undefined;
}

/** Converts one LangChain message into `builder`. */
function convertOne(
  builder: MessagesBuilder,
  value: unknown,
  index: number,
  fieldsFromSources: boolean,
  issues: ValidationIssue[],
  walked: { any: boolean },
): void {
  const context: ReadContext = { issues, path: [index], walked };
  const kind = kindOf(value);
  if (kind === undefined || !isRecord(value)) {
    fail(context, "type", 'must be a message of type "human", "ai", "tool" or "system"');
    return;
  }
  const { id, generated } = builder.id(context, value, index);
  if (kind === "tool") {
    builder.result(resultBlock(context, value, fieldsFromSources, generated), id, index);
    return;
  }
  if (kind === "system") {
    builder.add("system", [systemBlock(context, value)], id, index);
    return;
  }
  const blocks = messageBlocks(context, value, kind, fieldsFromSources);
  if (generated) keepOnLast(blocks, spreadWith(messageFieldsOf(blocks), { noId: true }));
  builder.add(kind, blocks, id, index, generatedOf(value));
}

/** The message fields {@link keepOnLast} put on the last block. */
function messageFieldsOf(blocks: readonly ContentBlock[]): JsonObject {
  const last = blocks.at(-1);
  if (last === undefined) return {};
  if (last.type === "opaque") return (last.block[OPAQUE_MESSAGE_KEY] ?? {}) as JsonObject;
  const own = last.extra?.[LANGCHAIN_KEY];
  return (isRecord(own) && isRecord(own["message"]) ? own["message"] : {}) as JsonObject;
}

/** Converted messages, and for each the index of the LangChain message it starts at. */
export interface ConvertedMessages {
  messages: Message[];
  starts: number[];
}

/** {@link fromLangChainMessages} on checked options, with the middleware's settings. */
export function convertLangChainMessages(
  messages: readonly unknown[],
  settings: ConversionSettings,
): ConvertedMessages {
  if (!Array.isArray(messages)) {
    throw new ValidationError("LangChain messages", [
      { path: [], message: "must be an array of messages" },
    ]);
  }
  const builder = new MessagesBuilder(settings);
  const issues: ValidationIssue[] = [];
  const walked = { any: false };
  let cause: unknown;
  // By index: a hole is no message, and is named (`forEach` and `map` skip holes).
  for (let index = 0; index < messages.length; index += 1) {
    try {
      const value = messages[index];
      convertOne(builder, value, index, settings.fieldsFromSources === true, issues, walked);
    } catch (error) {
      // A getter or a proxy's trap that threw, anywhere in the message: bad input, named.
      if (ValidationError.isInstance(error)) throw error;
      cause = error;
      issues.push({ path: [index], message: "could not be read (a getter or proxy threw)" });
      break;
    }
  }
  if (issues.length > 0) throw new ValidationError("LangChain messages", issues, { cause });
  // Checked as read, built of what was checked: later checks (a compaction's, a session's
  // append) find them known, as every adapter's conversion leaves them. Unless a kept value was
  // checked by the full walk: then it may nest up to the schema's limit from where it stood, so
  // past it under `extra`, and the message check runs again. Copied quickly, it nests at most 64
  // levels. A caller's clock is answered for by `fromLangChainMessages` (`checkMadeByOptions`),
  // which throws these messages away with a bad date.
  if (!walked.any) rememberBuilt(builder.messages);
  return { messages: builder.messages, starts: builder.starts };
}

/**
 * Converts LangChain messages (`BaseMessage[]`: an agent's `state.messages`, a chat history)
 * to ours, losslessly: {@link toLangChainMessages} gives the same messages back. A human
 * message opens a turn; AI messages and tool results continue it; tool messages in a row
 * become one user message of results; a system message is carried verbatim in a message of
 * its own. An AI message's `tool_calls` become tool uses, in place where its content shows
 * them (Anthropic's `tool_use`, the standard `tool_call` block); signed reasoning (`thinking`,
 * or `reasoning` with a `signature`) becomes thinking, `redacted_thinking` (also as the standard
 * content's `non_standard` block wraps it) redacted thinking,
 * images images (binary data, a `Uint8Array` or `Buffer`, as base64: it comes back of the same
 * kind, as it does deeper in a block or in a system message's; an `ArrayBuffer`, which
 * LangChain's blocks do not take, is refused); other blocks are carried whole. A message's own fields (`id`, `name`,
 * `additional_kwargs`, `response_metadata`, `usage_metadata`, a tool message's `status`,
 * `artifact`, …) are kept under `extra.langchain`.
 *
 * @example
 * const session = new AgentSession({ contextLimit: 200_000 });
 * session.append(...fromLangChainMessages(history, { sessionId: session.sessionId }));
 * @throws {ValidationError} naming the path of each malformed message or block, and of any
 * field that is not JSON (an `artifact` holding a class instance, say).
 */
export function fromLangChainMessages(
  messages: readonly BaseMessage[] | readonly unknown[],
  options: FromLangChainMessagesOptions = {},
): Message[] {
  checkConversionOptions(options, "fromLangChainMessages options");
  const { messages: converted } = convertLangChainMessages(messages, options);
  return checkMadeByOptions(converted, "fromLangChainMessages options");
}
