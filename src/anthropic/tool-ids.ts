import type { ContentBlock, Message } from "../core/message.js";

/** What the Messages API takes as a tool use's id (`^[a-zA-Z0-9_-]+$`). */
const SENDABLE_ID = /^[\w-]+$/;

/** Whether the Messages API takes `id` as a tool use's id as it is. */
export const isSendableToolId = (id: string): boolean => SENDABLE_ID.test(id);

/**
 * A tool use's id as the Messages API takes it: the id itself when it is one (`toolu_…`), else
 * every other character as `_` and a hash of the id after it, so that two ids never meet and the
 * same id is always sent the same (another provider's: Kimi's `functions.bash:0`, a gateway's
 * `call_1|fc_1`). The same for the call and for its result.
 */
export function sendableToolId(id: string): string {
  if (isSendableToolId(id)) return id;
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1)
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  return `${id.replace(/[^\w-]/g, "_")}_${(hash >>> 0).toString(36)}`;
}

/**
 * `messages` with every tool use's id distinct, as the Messages API requires: a call whose id
 * an earlier call had (a provider that numbers each reply's calls, `call_0` every time) is
 * sent as `<id>_<n>`, its n-th use, and so are its results; `messages` themselves when no id
 * comes twice. The same conversation is always sent the same.
 */
export function withDistinctToolIds(messages: readonly Message[]): readonly Message[] {
  const uses = new Map<string, number>();
  let reused = false;
  for (let index = 0; index < messages.length && !reused; index += 1)
    for (const block of messages[index]!.content) {
      if (block.type !== "tool_use") continue;
      if (uses.has(block.id)) reused = true;
      uses.set(block.id, 1);
    }
  if (!reused) return messages;
  // The ids taken: a new one never meets another call's.
  const taken = new Set(uses.keys());
  uses.clear();
  /** Each id's latest call, as sent. */
  const latest = new Map<string, string>();
  return messages.map((message) => {
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (block.type === "tool_result") {
        const sent = latest.get(block.toolUseId) ?? block.toolUseId;
        if (sent === block.toolUseId) return block;
        changed = true;
        return { ...block, toolUseId: sent };
      }
      if (block.type !== "tool_use") return block;
      const use = (uses.get(block.id) ?? 0) + 1;
      uses.set(block.id, use);
      if (use === 1) {
        latest.set(block.id, block.id);
        return block;
      }
      let sent = `${block.id}_${use}`;
      while (taken.has(sent)) sent += "_";
      taken.add(sent);
      latest.set(block.id, sent);
      changed = true;
      return { ...block, id: sent };
    });
    return changed ? { ...message, content } : message;
  });
}
