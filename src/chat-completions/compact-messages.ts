import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
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
  // Each message read once: the reading tells `origins` of those the writing mends.
  from: (input, origins) => chatMessagesToOurs(input, { idPrefix: "" }, origins),
  to: (converted, origins) => writeChatMessages(converted, "keep", origins),
});
