import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import type { Message } from "../core/message.js";
import { oneCallHelper } from "../session/compact-messages.js";
import { writeAnthropicMessages } from "./request.js";
import { anthropicMessagesToOurs } from "./turns.js";

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
 * @throws {ValidationError} for bad options or malformed messages; the caller's abort rejects
 * with an `aborted` `CompactionError`.
 */
export const compactAnthropicMessages = oneCallHelper<MessageParam>({
  entry: "compactAnthropicMessages",
  what: "Anthropic messages",
  // Ids by position: the messages live for the call only, and are named the same at each.
  // The reading tells `origins.mends` of a reused tool use id, as `distinctToolIds` would.
  from: (input, origins) => anthropicMessagesToOurs(input, { idPrefix: "" }, origins),
  // A tool use id twice is refused: a reused one is written anew, as toAnthropicMessages does.
  to: (messages, origins) =>
    writeAnthropicMessages(
      origins.mends || holdsOtherToolUse(origins.messages, messages)
        ? withDistinctToolIds(messages)
        : messages,
      origins,
    ),
});

/**
 * Whether a message of `sent` other than one of `converted` (as the conversion made it) holds
 * a tool use. When none does, and the conversion's own tool uses had no id twice (no `mends`),
 * no id comes twice in `sent` ({@link withDistinctToolIds} would leave it as it is), and it is
 * not walked again: a compaction keeps messages in order, and one it changed (a masked result)
 * stands where it stood. The conversion's messages are found by their ids, their positions.
 */
function holdsOtherToolUse(converted: readonly Message[], sent: readonly Message[]): boolean {
  let next = 0;
  for (let index = 0; index < sent.length; index += 1) {
    const message = sent[index]!;
    const expected: Message | undefined = converted[next];
    if (expected === message) {
      next += 1;
      continue;
    }
    // Changed where it stood; else where its id (its position) says, past messages removed
    // (one met again, or out of order, is walked).
    if (expected !== undefined && expected.id === message.id) next += 1;
    else {
      const at = Number(message.id);
      if (at > next && converted[at] === message) {
        next = at + 1;
        continue;
      }
    }
    const { content } = message;
    for (let block = 0; block < content.length; block += 1)
      if (content[block]!.type === "tool_use") return true;
  }
  return false;
}
