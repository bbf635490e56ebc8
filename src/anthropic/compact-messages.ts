import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { CompactionError, ValidationError } from "../core/errors.js";
import { oneCallHelper } from "../session/compact-messages.js";
import { distinctSent } from "../session/distinct-sent-ids.js";
import type { CompactedMessages, CompactMessagesOptions } from "../session/stateless-options.js";
import { writeAnthropicMessages } from "./request.js";
import { anthropicMessagesToOurs } from "./turns.js";

const compactShared = oneCallHelper<MessageParam>({
  entry: "compactAnthropicMessages",
  what: "Anthropic messages",
  // Ids by position: the messages live for the call only, and are named the same at each.
  // The reading tells `origins.mends` of a reused tool use id, as `distinctToolIds` would.
  from: (input, origins) => anthropicMessagesToOurs(input, { idPrefix: "" }, origins),
  // A tool use id twice is refused: a reused one is written anew, as toAnthropicMessages does.
  to: (messages, origins) =>
    writeAnthropicMessages(distinctSent(origins.messages, messages, origins.mends), origins),
});

/**
 * Compacts a whole Messages API conversation (a request's `messages`) in one call, as a
 * stateless server does for each request it gets: converts it, compacts it as the session
 * does (its default compactors, clamps, pins, stale thinking removed, the archive, the last
 * resort) and converts back. Resolves to the input array itself when nothing changed, else
 * hands back the caller's own params for the messages left as they were.
 *
 * A failure of its compactor (a summarizer's outage) or of the archive does not reject: the
 * result's `error` holds it, and the last resort still fits the messages in the window (as in a
 * session's run: what ran before a failed compactor stands; nothing a compactor did stands
 * when the archive could not keep what it removed).
 *
 * @example
 * const { messages } = await compactAnthropicMessages(history, { contextLimit: 200_000 });
 * const response = await client.messages.create({ model, max_tokens: 4096, system, messages });
 * @throws {ValidationError} for bad options or malformed messages (a getter or proxy of theirs
 * that threw among them); the caller's abort rejects with an `aborted` `CompactionError`.
 */
export const compactAnthropicMessages = async (
  messages: readonly MessageParam[] | readonly unknown[],
  options: CompactMessagesOptions,
): Promise<CompactedMessages<MessageParam>> => {
  try {
    return await compactShared(messages, options);
  } catch (error) {
    throw readAgain(messages, error);
  }
};

/**
 * The error of a call that threw `error`. Without an archive the reading keeps the caller's tool
 * inputs as they are (checked, not copied), so the compaction reads them again: a getter (or a
 * proxy's trap) there that answered the check and throws later gave its own error. Read again in
 * full (inputs copied), such messages are refused, naming the field; any other error is itself.
 */
function readAgain(messages: readonly unknown[], error: unknown): unknown {
  if (ValidationError.isInstance(error) || CompactionError.isInstance(error)) return error;
  try {
    anthropicMessagesToOurs(messages, { idPrefix: "" });
  } catch (refused) {
    if (ValidationError.isInstance(refused)) return refused;
  }
  return error;
}
