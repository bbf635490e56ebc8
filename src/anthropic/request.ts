import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  isSystemMessage,
  isSystemMessageBlock,
  startsWithCompaction,
} from "../core/conversation-structure.js";
import { assertMessages } from "../core/entry-validation.js";
import type { ContentBlock, Message } from "../core/message.js";
import { isStringContent, toAnthropicContent } from "./blocks.js";

function reorderToolResultsFirst(blocks: ContentBlock[]): ContentBlock[] {
  const results = blocks.filter((block) => block.type === "tool_result");
  if (results.length === 0) return blocks;
  return [...results, ...blocks.filter((block) => block.type !== "tool_result")];
}

/** Whether a message is sent as a wire message of its own, never merged with a neighbour. */
const standsAlone = (message: Message) => isSystemMessage(message) || startsWithCompaction(message);

/**
 * Converts our conversation to the `messages` of an Anthropic request: consecutive messages
 * of one role become one message (so the summary and the first kept user message are sent
 * as one user message), `tool_result` blocks lead their user message, and our own fields
 * (`compactSummary`, the adapter's markers) are left out. A mid-conversation system message
 * goes out as the `role: "system"` message it carries, and a message led by the API's
 * `compaction` block as a message of its own, both where they stand. Messages that came from
 * `fromAnthropicMessages` come back exactly as they were sent, string content included.
 *
 * @example
 * await session.maybeCompact();
 * const response = await client.messages.create({
 *   model, max_tokens: 1024, messages: toAnthropicMessages(session.messages),
 * });
 * @throws {ValidationError} when a message is malformed or two share an id.
 */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  // Cheap for a session's messages: each message object is fully checked only once.
  assertMessages(messages, "messages");
  const params: MessageParam[] = [];
  let index = 0;
  while (index < messages.length) {
    const first = messages[index]!;
    const carried = first.content[0];
    if (isSystemMessage(first) && isSystemMessageBlock(carried)) {
      params.push(carried.block.message as unknown as MessageParam);
      index += 1;
      continue;
    }
    const role = first.role;
    const group: ContentBlock[][] = [first.content];
    index += 1;
    if (!standsAlone(first)) {
      while (
        index < messages.length &&
        messages[index]!.role === role &&
        !standsAlone(messages[index]!)
      ) {
        group.push(messages[index]!.content);
        index += 1;
      }
    }
    const blocks = group.flat();
    if (group.length === 1 && isStringContent(blocks)) {
      params.push({ role, content: blocks[0].text });
      continue;
    }
    const ordered = role === "user" ? reorderToolResultsFirst(blocks) : blocks;
    params.push({ role, content: toAnthropicContent(ordered) });
  }
  return params;
}
