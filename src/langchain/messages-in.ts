import type { BaseMessage } from "@langchain/core/messages";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import {
  type ContentBlock,
  type GeneratedKind,
  type JsonObject,
  type Message,
  type OpaqueBlock,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type ToolResultBlock,
  type TurnId,
} from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { rememberConversation } from "../core/message-memo.js";
import { keyed, listOf, textBlock, toolResultBlock, toolUseBlock } from "../core/message-shapes.js";
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

/** A message's own fields as JSON (what is not JSON is refused). */
function ownFields(context: ReadContext, message: Record_, kind: Kind): JsonObject {
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

/** Whether `fields` has no key (without the array `Object.keys` makes, once a message). */
function isEmpty(fields: JsonObject): boolean {
  for (const _key in fields) return false;
  return true;
}

/** What a message's content was when its blocks do not show it: a string, or empty. */
type ContentMark = "string" | "empty" | undefined;

/** A last block's `extra` holding `message` alone: shared by every such block, frozen. */
const marksExtra = (message: JsonObject): JsonObject =>
  freezeDeeply(keyed(LANGCHAIN_KEY, keyed("message", message)) as JsonObject);

/**
 * The last block's `extra` when all its message keeps are the marks (its content a string or
 * empty, its id made here): the commonest messages (the fields their originals hold come back
 * from them by reference), sharing one object for each combination.
 */
const MARKS_EXTRA = {
  string: marksExtra({ content: "string" }),
  stringNoId: marksExtra({ content: "string", noId: true }),
  empty: marksExtra({ content: "empty" }),
  emptyNoId: marksExtra({ content: "empty", noId: true }),
  noId: marksExtra({ noId: true }),
};

/** The shared `extra` of {@link MARKS_EXTRA} for these marks; `undefined` for none. */
function marksExtraOf(content: ContentMark, noId: boolean): JsonObject | undefined {
  if (content === "string") return noId ? MARKS_EXTRA.stringNoId : MARKS_EXTRA.string;
  if (content === "empty") return noId ? MARKS_EXTRA.emptyNoId : MARKS_EXTRA.empty;
  return noId ? MARKS_EXTRA.noId : undefined;
}

/**
 * `block`, which has no `extra`, with `extra`: a text block and a tool use (each made of its
 * shape's fields alone) made anew from their shapes, any other copied.
 */
function withExtra(block: Exclude<ContentBlock, OpaqueBlock>, extra: JsonObject): ContentBlock {
  if (block.type === "text") return textBlock(block.text, extra);
  if (block.type === "tool_use") return toolUseBlock(block.id, block.name, block.input, extra);
  return spreadWith(block, keyed("extra", extra)) as ContentBlock;
}

/**
 * Keeps the message's fields on its last block, where the way back finds them: its own
 * (`own`: none when they come back from its original), then the marks of its content and of an
 * id made here (`noId`).
 */
function keepOnLast(
  blocks: ContentBlock[],
  own: JsonObject | undefined,
  content: ContentMark,
  noId: boolean,
): void {
  const last = blocks.length - 1;
  const block = blocks[last];
  if (block === undefined) return;
  if (block.type !== "opaque" && block.extra === undefined && (own === undefined || isEmpty(own))) {
    const shared = marksExtraOf(content, noId);
    if (shared !== undefined) blocks[last] = withExtra(block, shared);
    return;
  }
  const fields = own ?? {};
  if (content !== undefined) fields["content"] = content;
  if (noId) fields["noId"] = true;
  if (isEmpty(fields)) return;
  if (block.type === "opaque") {
    blocks[last] = {
      type: "opaque",
      block: spreadWith(block.block, { [OPAQUE_MESSAGE_KEY]: fields }),
    };
    return;
  }
  const langchain = (block.extra?.[LANGCHAIN_KEY] ?? {}) as JsonObject;
  const extra = spreadWith(block.extra ?? {}, {
    [LANGCHAIN_KEY]: spreadWith(langchain, { message: fields }),
  });
  blocks[last] = spreadWith(block, { extra }) as ContentBlock;
}

/** The blocks of a human or AI message, its own fields (and `noId`) on the last. */
function messageBlocks(
  context: ReadContext,
  message: Record_,
  kind: "human" | "ai",
  fieldsFromSources: boolean,
  noId: boolean,
): ContentBlock[] {
  const own = fieldsFromSources ? undefined : ownFields(context, message, kind);
  const { content } = message;
  let mark: ContentMark = typeof content === "string" ? "string" : undefined;
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
    blocks.push(textBlock(""));
    mark ??= "empty";
  }
  keepOnLast(blocks, own, mark, noId);
  return blocks;
}

/**
 * The `extra` of a tool result that keeps nothing of its message but that its id was made here
 * (`noId`): shared by every such block, frozen.
 */
const NO_ID_RESULT_EXTRA = marksExtra({ noId: true });

/** A tool message as a tool result: its own fields (its id too) kept on the block. */
function resultBlock(
  context: ReadContext,
  message: Record_,
  fieldsFromSources: boolean,
  noId: boolean,
): ToolResultBlock {
  const fields = fieldsFromSources ? undefined : ownFields(context, message, "tool");
  const toolUseId = message["tool_call_id"];
  if (typeof toolUseId !== "string" || toolUseId === "")
    fail(context, "tool_call_id", "must be a non-empty string");
  const { content } = message;
  let output: ToolResultBlock["content"] = "";
  if (typeof content === "string") output = content;
  else if (Array.isArray(content)) output = contentParts(context, content);
  else fail(context, "content", "must be a string or an array of content blocks");
  const id = typeof toolUseId === "string" ? toolUseId : "";
  const isError = message["status"] === "error";
  if (fields === undefined || isEmpty(fields))
    return toolResultBlock(id, output, isError, noId ? NO_ID_RESULT_EXTRA : undefined);
  if (noId) fields["noId"] = true;
  return withFields(toolResultBlock(id, output, isError), keyed("message", fields));
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
  const id = builder.id(context, value, index);
  const noId = builder.madeId;
  if (kind === "tool") {
    builder.result(resultBlock(context, value, fieldsFromSources, noId), id, index);
    return;
  }
  if (kind === "system") {
    builder.add("system", [systemBlock(context, value)], id, index);
    return;
  }
  const blocks = messageBlocks(context, value, kind, fieldsFromSources, noId);
  builder.add(kind, blocks, id, index, generatedOf(value));
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
  // Remembered with the estimate counted as each message was built, as `rememberBuilt` does
  // after a walk of its own (turns past 2^53 are refused by the check: not remembered).
  const { messages: built, tokens } = builder;
  if (!walked.any && Number.isSafeInteger(built.at(-1)?.turnId.number ?? 0))
    rememberConversation(built, tokens);
  return { messages: built, starts: builder.starts };
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
