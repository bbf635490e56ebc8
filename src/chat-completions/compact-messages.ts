import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ItemOrigins } from "../internal/item-origins.js";
import { oneCallHelper } from "../session/compact-messages.js";
import { chatMessagesToOurs } from "./chat-messages-in.js";
import { writeChatMessages } from "./chat-messages-out.js";

/**
 * Compacts a whole Chat Completions conversation (a request's `messages`, on any
 * OpenAI-compatible host) in one call, as a stateless server does for each request it gets:
 * converts it, compacts it as the session does (its default compactors, clamps, pins, the
 * archive, the last resort) and converts back, the hosts' reasoning fields kept where they
 * were. Resolves to the input array itself when nothing changed (and no message is one the API
 * refuses that the writing mends), else hands back the caller's own messages for those left as
 * they were.
 *
 * A failure of its compactor (a summarizer's outage) or of the archive does not reject: the
 * result's `error` holds it, and the last resort still fits the messages in the window (as in a
 * session's run: what ran before a failed compactor stands; nothing a compactor did stands
 * when the archive could not keep what it removed).
 *
 * @example
 * const { messages } = await compactChatMessages(history, { contextLimit: 128_000 });
 * const completion = await client.chat.completions.create({ model, messages });
 * @throws {ValidationError} for bad options or malformed messages; the caller's abort rejects
 * with an `aborted` `CompactionError`.
 */
export const compactChatMessages = oneCallHelper<ChatCompletionMessageParam>({
  entry: "compactChatMessages",
  what: "Chat Completions messages",
  // A tool call id twice is refused: a reused one is written anew, as toChatMessages does.
  distinctToolIds: true,
  // Ids by position: the messages live for the call only, and are named the same at each.
  from: (input, origins) => {
    const messages = chatMessagesToOurs(input, { idPrefix: "" }, origins);
    noteMends(input, origins);
    return messages;
  },
  to: (converted, origins) => writeChatMessages(converted, "keep", origins),
});

/**
 * Tells `origins` when a message (read, so of a known shape) is one the API refuses and the
 * writing mends (review 52b's finding 8: with nothing to compact, the caller's array went out
 * as it came): a user message without content (or `null`), an assistant message of neither
 * content nor calls (nor a function call or a refusal), an empty `tool_calls`, an `audio` as
 * the response gave it (its base64 data, written `{ id }`), a tool message holding a part other
 * than text (written to a user message of its own).
 */
function noteMends(
  input: readonly ChatCompletionMessageParam[],
  origins: ItemOrigins<ChatCompletionMessageParam>,
): void {
  for (const message of input) {
    const { role } = message;
    const fields = message as unknown as Record<string, unknown> & { tool_calls?: unknown[] };
    const { content } = fields;
    // An assistant message answers with content, calls, a deprecated function call or a refusal.
    const answered =
      fields.tool_calls !== undefined ||
      fields["function_call"] !== undefined ||
      fields["refusal"] !== undefined;
    const mended =
      role === "user"
        ? content === undefined || content === null
        : role === "assistant"
          ? fields.tool_calls?.length === 0 ||
            ((content === undefined || content === null) && !answered) ||
            isReplyAudio(fields["audio"])
          : role === "tool" &&
            Array.isArray(content) &&
            content.some((part) => (part as { type?: unknown }).type !== "text");
    if (mended) {
      origins.mends = true;
      return;
    }
  }
}

/** Whether an assistant message's `audio` holds more than the `{ id }` a request takes. */
function isReplyAudio(audio: unknown): boolean {
  if (audio === undefined || audio === null) return false;
  if (typeof audio !== "object" || Array.isArray(audio)) return true;
  const keys = Object.keys(audio);
  return keys.length !== 1 || keys[0] !== "id";
}
