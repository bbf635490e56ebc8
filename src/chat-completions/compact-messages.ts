import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { oneCallHelper } from "../session/compact-messages.js";
import { chatMessagesToOurs } from "./chat-messages-in.js";
import { writeChatMessages } from "./chat-messages-out.js";

/**
 * Compacts a whole Chat Completions conversation (a request's `messages`, on any
 * OpenAI-compatible host) in one call, as a stateless server does for each request it gets:
 * converts it, compacts it as the session does (its default compactors, clamps, pins, the
 * archive, the last resort) and converts back, the hosts' reasoning fields kept where they
 * were. Resolves to the input array itself when nothing changed.
 *
 * @example
 * const { messages } = await compactChatMessages(history, { contextLimit: 128_000 });
 * const completion = await client.chat.completions.create({ model, messages });
 * A failing compactor (a summarizer's outage) does not reject: what ran before it stands, the
 * last resort still fits the messages in the window, and the result's `error` holds it.
 * @throws {ValidationError} for bad options or malformed messages; a failing archive rejects
 * with its `CompactionError`.
 */
export const compactChatMessages = oneCallHelper<ChatCompletionMessageParam>({
  entry: "compactChatMessages",
  what: "Chat Completions messages",
  // Ids by position: the messages live for the call only, and are named the same at each.
  from: (input) => chatMessagesToOurs(input, { idPrefix: "" }),
  to: (converted) => writeChatMessages(converted, "keep"),
});
