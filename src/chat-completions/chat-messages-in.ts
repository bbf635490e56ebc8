import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { assertMessages } from "../core/entry-validation.js";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import {
  type ContentBlock,
  type JsonObject,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
} from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { rememberBuilt } from "../core/message-memo.js";
import { checkConversionOptions, checkMadeByOptions } from "../internal/conversion-options.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { copyJson, normalizeJson } from "../internal/json-value.js";
import { isPlainObject, spreadWith, without } from "../internal/plain-object.js";
import { TurnBuilder, type TurnBuilderOptions } from "../internal/turn-builder.js";
import { OPAQUE_PART_KEY, REASONING_FIELDS, withFields } from "./chat-fields.js";
import {
  callBlock,
  checkTextContent,
  contentBlocks,
  type MessageContext,
  reasoningBlock,
  toolResultBlock,
  withMessageFields,
} from "./message-blocks.js";
import { type ReadMessages, readQuickChatMessage } from "./messages-quick.js";
import { isNoContent, requestAudio } from "./request-audio.js";

/** Options of {@link fromChatMessages}. */
export interface FromChatMessagesOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`, read once per call. @default the wall clock */
  clock?: Clock;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/**
 * An assistant message's blocks: its reasoning, its content and refusal, its tool calls. Its
 * `audio` is kept as a request takes it back, `{ id }`, and the reply's transcript stands as
 * its text when it has no content (see {@link requestAudio}).
 */
export function assistantBlocks(context: MessageContext, message: JsonObject): ContentBlock[] {
  const { content, refusal } = message;
  const { audio, transcript } = requestAudio(message["audio"], context);
  // What a reply said by audio is its text when it wrote none: counted, summarized, sent.
  const spoken = isNoContent(content) && transcript !== "" ? transcript : undefined;
  const { blocks, form } = contentBlocks(context, spoken ?? content);
  const own: string[] = ["role", "content", "tool_calls", "audio", ...REASONING_FIELDS];
  if (typeof refusal === "string") {
    blocks.push(withFields({ type: "text", text: refusal }, { refusal: "message" }));
    own.push("refusal");
  } else if (refusal !== undefined && refusal !== null) {
    context.issues.push({
      path: [...context.path, "refusal"],
      message: "must be a string or null",
    });
  }
  const calls = message["tool_calls"];
  if (Array.isArray(calls)) {
    calls.forEach((call, index) => {
      blocks.push(callBlock(context, call, ["tool_calls", index]));
    });
  } else if (calls !== undefined) {
    context.issues.push({ path: [...context.path, "tool_calls"], message: "must be an array" });
  }
  const fields = without(message, own);
  if (audio !== undefined) fields["audio"] = audio;
  // A reasoning field that is null says nothing: it stays with the message's own fields.
  for (const key of REASONING_FIELDS) if (message[key] === null) fields[key] = null;
  const reasoning = reasoningBlock(message);
  const kept = withMessageFields(blocks, fields, form);
  return reasoning === undefined ? kept : [reasoning, ...kept];
}

/**
 * The blocks of one chat message (of the given role, already known valid). Its `name` is a
 * string when present (every role that has one; a `function` message must have one).
 */
function messageBlocks(context: MessageContext, message: JsonObject): ContentBlock[] {
  const { role, name } = message;
  if (typeof name !== "string" && (name !== undefined || role === "function"))
    context.issues.push({ path: [...context.path, "name"], message: "must be a string" });
  switch (role) {
    case "system":
    case "developer":
      checkTextContent(context, message["content"]);
      return [{ type: "opaque", block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message } }];
    case "user": {
      const { blocks, form } = contentBlocks(context, message["content"]);
      return withMessageFields(blocks, without(message, ["role", "content"]), form);
    }
    case "assistant":
      return assistantBlocks(context, message);
    case "tool":
      return [toolResultBlock(context, message)];
    default: {
      // The deprecated `function` role: carried whole, on the tool side. Its content is a
      // string or `null`.
      const { content } = message;
      if (content !== null && typeof content !== "string")
        context.issues.push({
          path: [...context.path, "content"],
          message: "must be a string or null",
        });
      return [{ type: "opaque", block: spreadWith(message, { [OPAQUE_PART_KEY]: "message" }) }];
    }
  }
}

/**
 * Converts a Chat Completions `messages` array (the request's, or an app's stored history) to
 * our messages, losslessly: {@link toChatMessages} gives the same messages back. A user message
 * opens a turn; an assistant message is one of ours (its reasoning fields first, as one opaque
 * block; text, refusal and `tool_calls` as blocks, the exact `arguments` text kept); the `tool`
 * messages after it one user message of tool results, paired by `tool_call_id`; a `system` or
 * `developer` message one holding it verbatim. Fields our blocks do not model (`name`,
 * a part's `detail`, …) are kept under `extra.chatCompletions`; parts not modelled (audio,
 * files) are carried whole and in place. A response message stored as it came is read as the
 * request takes it: its `audio` as `{ id }` (without the reply's base64 `data`), its
 * `transcript` as its text when it has no content.
 *
 * @example
 * const messages = fromChatMessages(history, { sessionId: session.sessionId });
 * @throws {ValidationError} naming the path of each malformed message.
 */
export function fromChatMessages(
  messages: readonly ChatCompletionMessageParam[] | readonly unknown[],
  options: FromChatMessagesOptions = {},
): Message[] {
  checkConversionOptions(options, "fromChatMessages options");
  if (!Array.isArray(messages)) {
    throw new ValidationError("Chat Completions messages", [
      { path: [], message: "must be an array of chat messages" },
    ]);
  }
  return chatMessagesToOurs(messages, options);
}

/**
 * {@link fromChatMessages} of an array, its options checked (a one-call helper's `idPrefix`
 * too); `origins` told of the chat messages each message was read from alone, and whether the
 * writing mends one (`mends`).
 * @throws {ValidationError} naming each malformed message, and one a getter or proxy of which
 * threw (its error the cause).
 */
export function chatMessagesToOurs(
  messages: readonly unknown[],
  options: TurnBuilderOptions,
  origins?: ItemOrigins<ChatCompletionMessageParam>,
): Message[] {
  const issues: ValidationIssue[] = [];
  // The clock read once, and one session id, however many times the messages are read.
  const createdAt = (options.clock ?? systemClock)();
  const once: TurnBuilderOptions = {
    ...options,
    sessionId: options.sessionId ?? newId(),
    clock: () => createdAt,
  };
  const builder = new MessageBuilder(once, origins);
  // Where the quick reading stopped, the full one goes on: no message is read twice (a getter
  // or a proxy's key listing that answered once may throw).
  const stopped = readQuickly(messages, issues, builder);
  const quick = stopped === messages.length;
  if (!quick) readInFull(messages, issues, builder, stopped);
  if (issues.length > 0) throw new ValidationError(WHAT, issues);
  const built = checkMadeByOptions(builder.messages, "fromChatMessages options");
  // Read quickly, every value nests at most 64 levels, and so does its place under `extra`.
  // Read in full, a value was checked from where it stood, up to 256 levels: kept 2 or 3
  // levels deeper under `extra`, it may pass the messages' limit, so they are checked whole.
  if (quick) rememberBuilt(built);
  else assertMessages(built, WHAT);
  if (origins !== undefined && builder.mends) origins.mends = true;
  return builder.messages;
}

const WHAT = "Chat Completions messages";

/** One message (a copy) read into `read`, its issues reported. */
function readMessage(
  message: unknown,
  index: number,
  issues: ValidationIssue[],
  read: ReadMessages,
): void {
  if (
    !isPlainObject(message) ||
    typeof message["role"] !== "string" ||
    !ROLES.has(message["role"])
  ) {
    issues.push({
      path: [index, "role"],
      message: "must be a chat message: role system, developer, user, assistant, tool or function",
    });
    return;
  }
  const copy = message as JsonObject;
  const blocks = messageBlocks({ issues, path: [index] }, copy);
  read.add(message["role"], blocks, false, isMended(copy));
}

/**
 * Whether the writing mends `message` (a copy, read): one the API refuses (review 52b's finding
 * 8: with nothing to compact, the caller's array went out as it came). A user message without
 * content (or `null`), an assistant message of neither content nor calls (nor a function call
 * or a refusal), an empty `tool_calls`, an `audio` as the response gave it (its base64 data,
 * written `{ id }`), a tool message holding a part other than text, an assistant message an
 * image (each written to a user message of its own). The quick reading tells of the messages it
 * reads.
 */
function isMended(message: JsonObject): boolean {
  const { role, content } = message;
  const calls = message["tool_calls"];
  if (role === "user") return content === undefined || content === null;
  if (role === "tool")
    return (
      Array.isArray(content) && content.some((part) => (part as JsonObject)["type"] !== "text")
    );
  if (role !== "assistant") return false;
  if (
    Array.isArray(content) &&
    content.some((part) => (part as JsonObject)["type"] === "image_url")
  )
    return true;
  // An assistant message answers with content, calls, a deprecated function call, a refusal,
  // or the audio of a previous response (`{ id }`: the API's own reply has `content: null`).
  const { audio } = message;
  const answered =
    calls !== undefined ||
    message["function_call"] !== undefined ||
    message["refusal"] !== undefined ||
    (isPlainObject(audio) && !isReplyAudio(audio));
  return (
    (Array.isArray(calls) && calls.length === 0) ||
    ((content === undefined || content === null) && !answered) ||
    isReplyAudio(audio)
  );
}

/** Whether an assistant message's `audio` holds more than the `{ id }` a request takes. */
function isReplyAudio(audio: unknown): boolean {
  if (audio === undefined || audio === null) return false;
  if (typeof audio !== "object" || Array.isArray(audio)) return true;
  const keys = Object.keys(audio);
  return keys.length !== 1 || keys[0] !== "id";
}

/**
 * Reads the messages into `read` (from the one at `from` on) from a copy of the whole: nothing
 * of the caller's is shared, and whatever JSON cannot hold is reported.
 * @throws {ValidationError} when a getter or proxy of a message threw (see {@link unreadable}).
 */
export function readInFull(
  messages: readonly unknown[],
  issues: ValidationIssue[],
  read: ReadMessages,
  from = 0,
): void {
  let index = from;
  try {
    // Each message copied apart: an issue (one nesting too deep too) names the message it is in.
    for (; index < messages.length; index += 1)
      readMessage(normalizeJson(messages[index], [index], issues) ?? null, index, issues, read);
  } catch (error) {
    throw unreadable(issues, index, error);
  }
}

/**
 * Reads the messages into `read` as {@link readInFull} reads them, the common ones from the
 * caller's own message (their blocks hold only its strings, each field read once), each other
 * one from a copy of it alone, up to one that cannot be copied so: its index is returned
 * (nothing reported for it: {@link readInFull} goes on from there, and names why), else the
 * messages' length.
 * @throws {ValidationError} when a getter or proxy of a message threw (see {@link unreadable}).
 */
export function readQuickly(
  messages: readonly unknown[],
  issues: ValidationIssue[],
  read: ReadMessages,
): number {
  let index = 0;
  try {
    for (; index < messages.length; index += 1) {
      const message = messages[index];
      if (readQuickChatMessage(message, read)) continue;
      // The depth of a message inside the array, as the copy of the whole would meet it.
      const one = copyJson(message, 1);
      if (one === undefined) break;
      readMessage(one, index, issues, read);
    }
  } catch (error) {
    throw unreadable(issues, index, error);
  }
  return index;
}

/**
 * The error of a message that could not be read (a getter or a proxy's trap threw, anywhere in
 * it): bad input, named by its index beside the issues found before it, the error its cause.
 */
function unreadable(issues: ValidationIssue[], index: number, error: unknown): ValidationError {
  if (ValidationError.isInstance(error)) return error;
  const issue = { path: [index], message: "could not be read (a getter or proxy threw)" };
  return new ValidationError(WHAT, [...issues, issue], { cause: error });
}

/** Builds our messages in order: joins a run of tool messages into one, numbers turns. */
class MessageBuilder implements ReadMessages {
  readonly #turns: TurnBuilder;
  readonly #origins: ItemOrigins<ChatCompletionMessageParam> | undefined;
  /** The tool results message a run of tool messages is still joining. */
  #tools: ContentBlock[] | undefined;
  /** The chat message that run started at (-1: one of its messages is not written as read). */
  #toolsFrom = 0;
  /** The chat message {@link add} is given next (it is given each, in order). */
  #item = 0;
  /** Whether the writing mends a message read (see `isMended`). */
  mends = false;

  constructor(options: TurnBuilderOptions, origins?: ItemOrigins<ChatCompletionMessageParam>) {
    this.#turns = new TurnBuilder(options);
    this.#origins = origins;
  }

  get messages(): Message[] {
    return this.#turns.messages;
  }

  add(role: string, blocks: ContentBlock[], exact = false, mended = false): void {
    const item = this.#item++;
    if (mended) this.mends = true;
    const made = this.messages.length;
    if (role === "tool" || role === "function") {
      if (this.#tools !== undefined) this.#tools.push(...blocks);
      else {
        this.#tools = blocks;
        this.#toolsFrom = item;
        this.#turns.addInTurn("user", blocks);
      }
      if (!exact) this.#toolsFrom = -1;
      // The message of the run's results stands for every tool message of it so far.
      const from = this.#toolsFrom;
      this.#origins?.note(this.messages.length - 1, from, from === -1 ? -1 : item + 1);
      return;
    }
    this.#tools = undefined;
    if (role === "system" || role === "developer") this.#turns.addSystem(blocks);
    else if (role === "user") this.#turns.addUser(blocks);
    else this.#turns.addInTurn("assistant", blocks);
    if (exact) this.#origins?.noteRead(made, this.messages.length, item);
  }
}
