import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { oneCallHelper } from "../session/compact-messages.js";
import { writeAnthropicMessages } from "./request.js";
import { anthropicMessagesToOurs } from "./turns.js";

/**
 * Compacts a whole Messages API conversation (a request's `messages`) in one call, as a
 * stateless server does for each request it gets: converts it, compacts it as the session
 * does (its default compactors, clamps, pins, stale thinking removed, the archive, the last
 * resort) and converts back. Resolves to the input array itself when nothing changed.
 *
 * @example
 * const { messages } = await compactAnthropicMessages(history, { contextLimit: 200_000 });
 * const response = await client.messages.create({ model, max_tokens: 4096, system, messages });
 * A failing compactor (a summarizer's outage) does not reject: what ran before it stands, the
 * last resort still fits the messages in the window, and the result's `error` holds it.
 * @throws {ValidationError} for bad options or malformed messages; a failing archive rejects
 * with its `CompactionError`.
 */
export const compactAnthropicMessages = oneCallHelper<MessageParam>({
  entry: "compactAnthropicMessages",
  what: "Anthropic messages",
  // Ids by position: the messages live for the call only, and are named the same at each.
  from: (input) => anthropicMessagesToOurs(input, { idPrefix: "" }),
  to: writeAnthropicMessages,
});
