import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import type { ContentBlock, Message } from "../core/message.js";

/**
 * `messages` with every tool call's id distinct ({@link withDistinctToolIds}): the providers
 * behind the AI SDK send a call's `toolCallId` as the API's own id, and refuse one twice
 * (`@ai-sdk/anthropic`: "`tool_use` ids must be unique"; OpenAI's Responses and Chat
 * Completions alike). A renamed call's tool approval request (a `tool-approval-request` part
 * in its message) names the new id, as the SDK finds an approval's call by it. `messages`
 * themselves when no id comes twice, so the round trip stays lossless.
 */
export function withDistinctCallIds(messages: readonly Message[]): readonly Message[] {
  const sent = withDistinctToolIds(messages);
  if (sent === messages) return messages;
  return sent.map((message, index) => {
    const before = messages[index];
    if (message === before || before === undefined || message.role !== "assistant") return message;
    const renamed = new Map<string, string>();
    message.content.forEach((block, at) => {
      const was = before.content[at];
      if (block.type === "tool_use" && was?.type === "tool_use" && was.id !== block.id)
        renamed.set(was.id, block.id);
    });
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (block.type !== "opaque" || block.block["type"] !== "tool-approval-request") return block;
      const id = renamed.get(String(block.block["toolCallId"]));
      if (id === undefined) return block;
      changed = true;
      return { ...block, block: { ...block.block, toolCallId: id } };
    });
    return changed ? { ...message, content } : message;
  });
}
