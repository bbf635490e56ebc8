import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import type { ContentBlock, Message } from "../core/message.js";

const REQUEST = "tool-approval-request";
const RESPONSE = "tool-approval-response";

/**
 * `messages` with every tool call's id distinct ({@link withDistinctToolIds}): the providers
 * behind the AI SDK send a call's `toolCallId` as the API's own id, and refuse one twice
 * (`@ai-sdk/anthropic`: "`tool_use` ids must be unique"; OpenAI's Responses and Chat
 * Completions alike). A renamed call's tool approval request (a `tool-approval-request` part
 * in its message) names the new id, as the SDK finds an approval's call by it, and so does a
 * `tool-approval-response` that names the call (`toolCallId`, beside the `approvalId` the
 * SDK's own responses hold). `messages` themselves when no id comes twice, so the round trip
 * stays lossless; every other message the same object.
 */
export function withDistinctCallIds(messages: readonly Message[]): readonly Message[] {
  const sent = withDistinctToolIds(messages);
  if (sent === messages) return messages;
  /** The renamed calls' new ids, by the approval id of their requests. */
  const approvals = new Map<string, string>();
  return sent.map((message, index) => {
    const before = messages[index];
    if (before === undefined || (message === before && approvals.size === 0)) return message;
    const renamed = new Map<string, string>();
    if (message !== before && message.role === "assistant")
      message.content.forEach((block, at) => {
        const was = before.content[at];
        if (block.type === "tool_use" && was?.type === "tool_use" && was.id !== block.id)
          renamed.set(was.id, block.id);
      });
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (block.type !== "opaque") return block;
      const { type, toolCallId, approvalId } = block.block;
      let id: string | undefined;
      if (type === REQUEST && typeof toolCallId === "string") {
        id = renamed.get(toolCallId);
        if (id !== undefined && typeof approvalId === "string") approvals.set(approvalId, id);
      } else if (type === RESPONSE && typeof toolCallId === "string") {
        id = typeof approvalId === "string" ? approvals.get(approvalId) : undefined;
      }
      if (id === undefined || id === toolCallId) return block;
      changed = true;
      return { ...block, block: { ...block.block, toolCallId: id } };
    });
    return changed ? { ...message, content } : message;
  });
}
