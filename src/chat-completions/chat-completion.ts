import type { ChatCompletion } from "openai/resources/chat/completions";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, JsonObject, JsonValue } from "../core/message.js";
import type { Usage } from "../core/usage.js";
import type { AgentSession } from "../index.js";
import { normalizeJson } from "../internal/json-value.js";
import { isPlainObject } from "../internal/plain-object.js";
import { fieldsOf } from "./chat-fields.js";
import { assistantBlocks } from "./chat-messages-in.js";
import { type ChatCompletionUsageLike, usageFromChatCompletion } from "./usage.js";

/** What {@link appendChatCompletion} reads of a completion: its first choice's message and usage. */
export interface ChatCompletionLike {
  choices: readonly { message: ChatCompletion.Choice["message"] | JsonObject }[];
  usage?: ChatCompletionUsageLike | null;
}

/** The session's side of {@link appendChatCompletion}: its public append and usage API. */
export type ChatCompletionTarget = Pick<AgentSession, "addAssistant" | "recordUsage">;

/** What {@link appendChatCompletion} did. */
export interface AppendedChatCompletion {
  /** The assistant message appended; `undefined` when the reply said nothing (no content, call, refusal or reasoning). */
  message: AssistantMessage | undefined;
  /** The usage recorded; `undefined` when the completion reported none. */
  usage: Usage | undefined;
}

const SUBJECT = "chat completion";

/** Whether `value` is an object that is not an array (a completion, a choice). */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A completion's first choice; `undefined` for `choices: []` (what hosts send for a prompt
 * they filtered, or in the usage chunk of a stream). Only the first choice is read, so only it
 * is checked.
 */
function firstChoice(completion: unknown): Record<string, unknown> | undefined {
  const fail = (path: (string | number)[], message: string): never => {
    throw new ValidationError(SUBJECT, [{ path, message }]);
  };
  if (!isObject(completion)) return fail([], "must be a Chat Completions response (with choices)");
  const { choices } = completion;
  if (!Array.isArray(choices)) return fail(["choices"], "must be an array of choices");
  if (choices.length === 0) return undefined;
  const first: unknown = choices[0];
  return isObject(first) ? first : fail(["choices", 0], "must be a choice object (with a message)");
}

/**
 * The message without what the SDK's `parse()` and `stream().finalChatCompletion()` add to it,
 * read from its `content` and `arguments`, never sent by the API nor taken by a request: its
 * `parsed` and each call's `function.parsed_arguments`. Kept, they went back with every later
 * request (a copy of every call's arguments, or a parse's `Date` refused as no JSON).
 */
function withoutParsed(message: Record<string, unknown>): Record<string, unknown> {
  const { parsed: _parsed, ...rest } = message;
  const calls = rest["tool_calls"];
  if (Array.isArray(calls))
    rest["tool_calls"] = calls.map((call: unknown) => {
      const target = isObject(call) ? call["function"] : undefined;
      if (!isObject(target) || !("parsed_arguments" in target)) return call;
      const { parsed_arguments: _arguments, ...own } = target;
      return { ...(call as Record<string, unknown>), function: own };
    });
  return rest;
}

/**
 * A refusal's `content: null` as the request takes it back: `""`. The API takes an assistant
 * message without content only with calls (a legacy `function_call`, an audio reply), and
 * refuses the reply's own `{ content: null, refusal }` sent back ("Invalid value for
 * 'content': expected a string, got null.").
 */
function withRefusalContent(message: JsonObject): JsonObject {
  const calls = message["tool_calls"];
  const answered =
    (Array.isArray(calls) && calls.length > 0) ||
    isPlainObject(message["function_call"]) ||
    isPlainObject(message["audio"]);
  return message["content"] === null && typeof message["refusal"] === "string" && !answered
    ? { ...message, content: "" }
    : message;
}

/** The blocks of a reply's message, or none when it says nothing at all. */
function replyBlocks(message: unknown): ContentBlock[] {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(message)) {
    issues.push({ path: ["choices", 0, "message"], message: "must be a message object" });
    throw new ValidationError(SUBJECT, issues);
  }
  const read = normalizeJson(withoutParsed(message), ["choices", 0, "message"], issues);
  if (issues.length > 0) throw new ValidationError(SUBJECT, issues);
  const copy = withRefusalContent(read as JsonObject);
  // An audio reply is read as the request takes it back (`audio: { id }`, not its data), what
  // it said (its transcript) as its text.
  const blocks = assistantBlocks({ issues, path: ["choices", 0, "message"] }, copy);
  if (issues.length > 0) throw new ValidationError(SUBJECT, issues);
  const { content } = copy;
  const only = blocks.length === 1 ? blocks[0] : undefined;
  // The fields read with it, not the reply's: an audio without an id is not kept.
  const saysNothing =
    only?.type === "text" &&
    only.text === "" &&
    (content === null || content === "") &&
    Object.values(fieldsOf(only).message ?? {}).every(isEmpty);
  return saysNothing ? [] : blocks;
}

/** Whether a message field says nothing: `null` (`refusal`, `audio`) or `[]` (`annotations`). */
const isEmpty = (value: JsonValue): boolean =>
  value === null || (Array.isArray(value) && value.length === 0);

/**
 * Takes a whole `chat.completions.create` completion into a session in one call: its first
 * choice's message (reasoning fields, content, refusal, `tool_calls`, in that order) becomes
 * one assistant message (an audio reply's `audio` as the request takes it back, `{ id }`, its
 * transcript as its text; what the SDK's `parse()` adds, `parsed` and each call's
 * `parsed_arguments`, left out), and its usage (`cached_tokens` included) the context measure.
 * For a stream, pass `await stream.finalChatCompletion()` (the SDK's `chat.completions.stream`).
 * Everything is checked before anything is appended or recorded. A completion with
 * `choices: []` (what some hosts send for a prompt they filtered) appends nothing, and its
 * usage, if any, is still recorded.
 *
 * @example
 * const completion = await client.chat.completions.create({ model, messages: toChatMessages(session.messages) });
 * appendChatCompletion(session, completion);
 * @throws {ValidationError} naming the field when the completion is not a Chat Completions
 * response (an object with a `choices` array, its first choice an object with a message
 * object: another API's response is refused), its message is malformed, or a usage count is
 * not a whole number ≥ 0 (named under `usage`).
 */
export function appendChatCompletion(
  session: ChatCompletionTarget,
  completion: ChatCompletionLike,
): AppendedChatCompletion {
  const choice = firstChoice(completion);
  const content = choice === undefined ? [] : replyBlocks(choice["message"]);
  // Checked before anything is appended: a refused usage leaves the session as it was.
  const usage = completionUsage(completion.usage);
  const appended = content.length === 0 ? undefined : session.addAssistant(content);
  if (usage !== undefined) session.recordUsage(usage);
  return { message: appended, usage };
}

/** The completion's usage read; a `ValidationError` re-issued about its `usage` field. */
function completionUsage(usage: ChatCompletionUsageLike | null | undefined): Usage | undefined {
  try {
    return usageFromChatCompletion(usage);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new ValidationError(
      SUBJECT,
      error.issues.map((issue) => ({ ...issue, path: ["usage", ...issue.path] })),
    );
  }
}
