import type { ChatCompletion } from "openai/resources/chat/completions";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, JsonObject } from "../core/message.js";
import type { Usage } from "../core/usage.js";
import type { AgentSession } from "../index.js";
import { normalizeJson } from "../internal/json-value.js";
import { isPlainObject } from "../internal/plain-object.js";
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

/** The blocks of a reply's message, or none when it says nothing at all. */
function replyBlocks(message: unknown): ContentBlock[] {
  const issues: ValidationIssue[] = [];
  const copy = normalizeJson(message, ["choices", 0, "message"], issues);
  if (!isPlainObject(copy)) {
    issues.push({ path: ["choices", 0, "message"], message: "must be a message object" });
  }
  if (issues.length > 0) throw new ValidationError("chat completion", issues);
  const blocks = assistantBlocks({ issues, path: ["choices", 0, "message"] }, copy as JsonObject);
  if (issues.length > 0) throw new ValidationError("chat completion", issues);
  const { content } = copy as JsonObject;
  const only = blocks.length === 1 ? blocks[0] : undefined;
  const saysNothing =
    only?.type === "text" && only.text === "" && (content === null || content === "");
  return saysNothing ? [] : blocks;
}

/**
 * Takes a whole `chat.completions.create` completion into a session in one call: its first
 * choice's message (reasoning fields, content, refusal, `tool_calls`, in that order) becomes
 * one assistant message, and its usage (`cached_tokens` included) the context measure. For a
 * stream, pass `await stream.finalChatCompletion()` (the SDK's `chat.completions.stream`).
 *
 * @example
 * const completion = await client.chat.completions.create({ model, messages: toChatMessages(session.messages) });
 * appendChatCompletion(session, completion);
 * @throws {ValidationError} naming the path of a malformed message.
 */
export function appendChatCompletion(
  session: ChatCompletionTarget,
  completion: ChatCompletionLike,
): AppendedChatCompletion {
  const choices: unknown = isPlainObject(completion) ? completion.choices : undefined;
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const content = isPlainObject(first) ? replyBlocks(first["message"]) : [];
  const message = content.length === 0 ? undefined : session.addAssistant(content);
  const usage = usageFromChatCompletion(completion.usage);
  if (usage !== undefined) session.recordUsage(usage);
  return { message, usage };
}
