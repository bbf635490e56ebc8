import type { ModelMessage } from "ai";
import { isCompactionBlock, readableMessages } from "../core/conversation-structure.js";
import { assertMessages } from "../core/entry-validation.js";
import { ValidationError } from "../core/errors.js";
import type { ContentBlock, Message, TurnId } from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { rememberBuilt } from "../core/message-memo.js";
import { keyed, listOf, messageOf, textBlock } from "../core/message-shapes.js";
import { isWholeSummaryText, leadsSummary } from "../core/summary-format.js";
import {
  estimateBlockTokens,
  estimateContentTokens,
  estimateToolUseTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from "../core/tokens.js";
import { isSummaryTurn } from "../core/turn.js";
import { TurnTracker } from "../core/turn-tracker.js";
import { checkConversionOptions, checkMadeByOptions } from "../internal/conversion-options.js";
import { WrittenCallNames } from "./call-names.js";
import { withDistinctCallIds } from "./distinct-call-ids.js";
import { isLibraryUserMessage, joinedUserMessages } from "./joined-user-messages.js";
import { keepMessageOptions, systemBlock } from "./message-fields-in.js";
import { messageToModel } from "./message-out.js";
import { PartCursor } from "./part-cursor.js";
import {
  AI_SDK_KEY,
  filePart,
  imagePart,
  opaquePart,
  type PartContext,
  reasoningPart,
  textPart,
} from "./parts-in.js";
import { type ApartConversion, readApart, withApart } from "./read-apart.js";
import { toolCallPart, toolResultPart } from "./tool-parts-in.js";

/** Options of {@link fromModelMessages}. */
export interface FromModelMessagesOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`, read once per call: every message gets that instant. @default the wall clock */
  clock?: Clock;
  /** Makes each message id. @default one uuid v7 per call, suffixed with the message's index */
  generateId?: () => string;
}

type Record_ = Record<string, unknown>;
type Part = Record_ & { type?: unknown };

const USER_PARTS = new Set(["text", "image", "file"]);
const ASSISTANT_PARTS = new Set([
  "text",
  "file",
  "reasoning",
  "tool-call",
  "tool-result",
  "tool-approval-request",
]);
const TOOL_PARTS = new Set(["tool-result", "tool-approval-response"]);

function partToBlock(context: PartContext, role: string, part: Part, type: string): ContentBlock {
  switch (type) {
    case "text":
      return textPart(context, part);
    case "image":
      return imagePart(context, part, false);
    case "file":
      return filePart(context, part);
    case "reasoning":
      return reasoningPart(context, part);
    case "tool-call":
      return toolCallPart(context, part);
    case "tool-result":
      // In an assistant message: a provider-executed tool's result, carried whole.
      return role === "tool" ? toolResultPart(context, part) : opaquePart(context, part);
    default:
      return opaquePart(context, part);
  }
}

/**
 * Whether a part of `type` may stand in a message of `role` (`allowed`: its {@link allowedParts}):
 * the common parts of each role by comparison, the rest by a lookup.
 */
function isAllowed(role: string, type: string, allowed: Set<string>): boolean {
  if (type === "text") return role !== "tool";
  if (type === "tool-call") return role === "assistant";
  if (type === "tool-result") return role !== "user";
  return allowed.has(type);
}

function allowedParts(role: string): Set<string> {
  return role === "user" ? USER_PARTS : role === "assistant" ? ASSISTANT_PARTS : TOOL_PARTS;
}

/**
 * The blocks of one message's content (a string or empty content marked to come back so), and
 * their estimate, what `estimateContentTokens` gives for them, in `cursor.tokens`: a tool call's
 * input is measured by the walk that checked it.
 */
function contentBlocks(message: Record_, role: string, cursor: PartCursor): ContentBlock[] {
  cursor.tokens = -1;
  const blocks = readBlocks(message, role, cursor);
  if (cursor.tokens < 0) cursor.tokens = estimateContentTokens(blocks);
  return blocks;
}

/**
 * The one text block of a message written as a string or as no parts, its form kept, built
 * without literals (see `core/message-shapes.ts`): a string is how most user messages come.
 */
function formBlocks(text: string, form: "string" | "empty" | "emptyTool"): ContentBlock[] {
  return listOf<ContentBlock>(textBlock(text, keyed(AI_SDK_KEY, keyed("content", form))));
}

function readBlocks(message: Record_, role: string, cursor: PartCursor): ContentBlock[] {
  const { content } = message;
  const { issues } = cursor;
  if (typeof content === "string" && role !== "tool") return formBlocks(content, "string");
  if (!Array.isArray(content)) {
    issues.push({
      path: [cursor.message, "content"],
      message:
        role === "tool" ? "must be an array of parts" : "must be a string or an array of parts",
    });
    return [];
  }
  // A `tool` message of no parts comes back as one (it becomes a user message of ours).
  if (content.length === 0) return formBlocks("", role === "tool" ? "emptyTool" : "empty");
  const allowed = allowedParts(role);
  // An array of its final length: one pushed to from empty reserves room for 17 blocks, which
  // a conversation seen once fills the young generation with (and its collector copies).
  const blocks: ContentBlock[] = new Array(content.length);
  let length = 0;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (let index = 0; index < content.length; index += 1) {
    const part = content[index] as unknown;
    cursor.part = index;
    const type = isObject(part) ? part["type"] : undefined;
    if (typeof type !== "string" || !isAllowed(role, type, allowed)) {
      issues.push({
        path: [cursor.message, "content", index, "type"],
        message: `must be one of ${[...allowed].join(", ")} in a ${role} message`,
      });
      continue;
    }
    cursor.inputLength = -1;
    if (type === "reasoning") cursor.reasoning = true;
    const block = partToBlock(cursor, role, part as Part, type);
    tokens +=
      block.type === "tool_use" && cursor.inputLength >= 0
        ? estimateToolUseTokens(block.id, block.name, cursor.inputLength)
        : estimateBlockTokens(block);
    blocks[length] = block;
    length += 1;
  }
  cursor.part = -1;
  if (length !== blocks.length) blocks.length = length;
  cursor.tokens = tokens;
  return blocks;
}

function turnOf(turns: TurnTracker, role: string, blocks: ContentBlock[], first: boolean): TurnId {
  if (first && isCompactionBlock(blocks[0])) return turns.summary();
  if (role === "user")
    return !turns.opened && isWholeSummaryText(blocks[0]) ? turns.summary() : turns.open();
  return turns.current();
}

/**
 * Converts AI SDK messages (`ModelMessage[]`: what `generateText`, `streamText` and
 * `prepareStep` hand over) to ours, losslessly: {@link toModelMessages} gives the same messages
 * back. A `tool` message becomes a user message of tool results; a `system` message one holding
 * it verbatim ({@link SystemMessageBlock}). Turns are assigned as the session does: a user
 * message opens one, tool results and replies continue it. Fields our blocks do not model
 * (`providerOptions`, tool names, binary data) are kept under `extra.aiSdk`; a tool call's
 * malformed input, a provider-executed call, non-image files and reasoning without
 * Anthropic's signature are carried whole.
 *
 * @example
 * const messages = fromModelMessages(modelMessages, { sessionId: session.sessionId });
 * session.append(...messages);
 * @throws {ValidationError} naming the path of each malformed message or part.
 */
export function fromModelMessages(
  messages: readonly ModelMessage[] | readonly unknown[],
  options: FromModelMessagesOptions = {},
): Message[] {
  checkConversionOptions(options, "fromModelMessages options", { generateId: true });
  const converted = convertModelMessages(messages, options, undefined, undefined, true).messages;
  // Built and checked here: every later check (a compactor's, a session's) finds them known.
  rememberBuilt(checkMadeByOptions(converted, "fromModelMessages options"));
  return converted;
}

/** Messages converted by {@link convertModelMessages}, with their local token estimate. */
export interface ConvertedMessages {
  messages: Message[];
  /** What `estimateTokens(messages)` gives, worked out while each message was at hand. */
  tokens: number;
  /**
   * Where a message was read as two (a summary or notice and the request a writer joined after
   * it): the index of the library's part, the request's right after it. Absent when none was:
   * then each message stands for the caller's message at its index.
   */
  readApart?: readonly number[];
  /** Whether a message held a `reasoning` part: without one, no block is thinking. */
  reasoning: boolean;
}

/**
 * {@link fromModelMessages} on options already checked, remembering nothing about the
 * messages (a stateless request's die with it); `after`, when given, is the turn of the
 * message before the first (a conversation converted a part at a time): replies and tool
 * results continue it. With `firstPosition` (and no `generateId`), a message's id is its
 * position in the caller's array (`"0"`, `"1"`, …, from `firstPosition`): unique within that
 * conversation, and free, where a session's ids must be unique everywhere. `copyInputs`: a tool
 * call's input is copied, not shared with the caller's part (what `fromModelMessages` returns
 * outlives the call; a stateless step's messages die with it, and share it for speed).
 */
export function convertModelMessages(
  messages: readonly unknown[],
  options: FromModelMessagesOptions,
  after: TurnId | undefined,
  firstPosition?: number,
  copyInputs = false,
): ConvertedMessages {
  if (!Array.isArray(messages)) {
    throw new ValidationError("AI SDK messages", [
      { path: [], message: "must be an array of messages" },
    ]);
  }
  const sessionId = options.sessionId ?? newId();
  const createdAt = (options.clock ?? systemClock)();
  const idOf = messageIds(options.generateId, firstPosition);
  const turns = new TurnTracker(options.firstTurnNumber ?? 1, after);
  const out: Message[] = new Array(messages.length);
  const cursor = new PartCursor(out);
  cursor.copyInputs = copyInputs;
  const { generateId } = options;
  const conversion: Conversion = {
    out,
    apart: [],
    generateId,
    cursor,
    turns,
    sessionId,
    createdAt,
    idOf,
    after,
  };
  let tokens = 0;
  let index = 0;
  // A getter (or a proxy's trap) that throws is bad input: an issue naming where it was read
  // (see `unreadableAt`); the conversion goes on after that message. The `try` is around the
  // loop, not each read: the hot path reads fields as it did.
  while (index < messages.length)
    try {
      for (; index < messages.length; index += 1)
        tokens += convertMessage(conversion, messages[index], index);
    } catch (error) {
      cursor.unreadableAt(messages, index, error);
      index += 1;
    }
  const { issues } = cursor;
  if (issues.length > 0)
    throw new ValidationError("AI SDK messages", issues, { cause: cursor.readError });
  const { reasoning } = cursor;
  const converted: ConvertedMessages =
    conversion.apart.length === 0
      ? { messages: out, tokens, reasoning }
      : { ...withApart(out, conversion.apart), tokens, reasoning };
  if (generateId !== undefined) checkIds(converted.messages);
  return converted;
}

/** What {@link convertMessage} writes to and reads from: one conversion's state. */
interface Conversion extends ApartConversion {
  cursor: PartCursor;
  turns: TurnTracker;
  sessionId: string;
  createdAt: Date;
  idOf: (index: number) => string;
  after: TurnId | undefined;
}

/** Converts the message at `index` into `out` (issues to the cursor); returns its estimate. */
function convertMessage(conversion: Conversion, message: unknown, index: number): number {
  const { out, cursor, turns, sessionId, createdAt } = conversion;
  const { issues } = cursor;
  cursor.part = -1;
  const role = isObject(message) ? message["role"] : undefined;
  if (
    !isObject(message) ||
    (role !== "user" && role !== "assistant" && role !== "tool" && role !== "system")
  ) {
    issues.push({
      path: [index, "role"],
      message: 'must be "system", "user", "assistant" or "tool"',
    });
    return 0;
  }
  const id = conversion.idOf(index);
  if (role === "system") {
    const content = [systemBlock(message, index, issues)];
    out[index] = messageOf("user", id, sessionId, turns.pending(), createdAt, content);
    return estimateContentTokens(content);
  }
  cursor.message = index;
  const content = contentBlocks(message, role, cursor);
  const options = message["providerOptions"];
  let tokens = cursor.tokens;
  // The message's options go on a block (an opaque one measures them): estimated again.
  if (options !== undefined) {
    keepMessageOptions(content, options, issues, [index]);
    tokens = estimateContentTokens(content);
  }
  const turnId = turnOf(turns, role, content, index === 0 && conversion.after === undefined);
  if (role === "assistant") {
    out[index] = messageOf("assistant", id, sessionId, turnId, createdAt, content);
    cursor.calls.lastAssistant = index;
  } else if (turnId.number === 0 && isSummaryTurn(turnId) && leadsSummary(content[0]))
    return readApart(conversion, index, id, turnId, content) ?? tokens;
  else out[index] = messageOf("user", id, sessionId, turnId, createdAt, content);
  return tokens;
}

/**
 * How a conversion names its messages: `generateId`'s ids; positions from `firstPosition`; or
 * one uuid v7 per call, suffixed with each message's index.
 */
function messageIds(
  generateId: (() => string) | undefined,
  firstPosition: number | undefined,
): (index: number) => string {
  if (generateId !== undefined) return () => generateId();
  if (firstPosition !== undefined) return (index) => String(firstPosition + index);
  const prefix = `${newId()}-`;
  return (index) => prefix + index;
}

/** An object that is not an array: what a message or a part must be (their fields are read one by one). */
function isObject(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkIds(messages: readonly Message[]): void {
  const seen = new Set<string>();
  messages.forEach((message, index) => {
    if (typeof message.id !== "string" || message.id === "" || seen.has(message.id)) {
      throw new ValidationError("messages from fromModelMessages (see its generateId)", [
        { path: [index, "id"], message: "must be a non-empty string, unique in the conversation" },
      ]);
    }
    seen.add(message.id);
  });
}

/**
 * Converts our messages to AI SDK messages (`ModelMessage[]`), the inverse of
 * {@link fromModelMessages}: a user message of tool results becomes a `tool` message (and a
 * user message for any text after them), a held `system` message comes back verbatim, every
 * kept AI SDK field (`extra.aiSdk`) returns to its place. Blocks written elsewhere (the
 * Anthropic adapter's, a summary) get the AI SDK's plain shapes; a tool result's `toolName`
 * is found from its call. Opaque blocks another adapter kept (Anthropic's server tool blocks,
 * Gemini parts, Responses items, LangChain standard blocks) are left out, as the AI SDK's
 * prompt validation refuses them; a message of nothing else is not written. A call whose id an
 * earlier, answered call had (a provider numbering each reply's calls, `call_0` every time)
 * goes with its result as `<id>_<n>`, as the providers behind the SDK refuse an id twice.
 *
 * @example
 * const result = await generateText({ model, messages: toModelMessages(session.messages) });
 * @throws {ValidationError} naming the field when `messages` are not the library's messages
 * (AI SDK messages go through `fromModelMessages` first) or two share an id.
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  // Cheap for a session's messages: each message object is fully checked only once.
  assertMessages(messages, "messages");
  return writeModelMessages(withDistinctCallIds(readableMessages(messages)));
}

/**
 * {@link toModelMessages} of messages already checked, their ids as they are: what the
 * stateless paths write, whose messages are the SDK loop's own, its call ids as the provider
 * gave them.
 */
export function writeModelMessages(messages: readonly Message[]): ModelMessage[] {
  const toolNames = new WrittenCallNames(messages);
  const out: ModelMessage[] = [];
  // Where the library's own user messages were written: joined with a user message beside them.
  const written: number[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const before = out.length;
    toolNames.at(index);
    messageToModel(message, toolNames, out);
    if (out.length > before && isLibraryUserMessage(message)) written.push(out.length - 1);
  }
  return joinedUserMessages(out, written);
}
