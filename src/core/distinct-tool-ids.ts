import type { ContentBlock, Message } from "./message.js";

/**
 * `messages` with every tool use's id distinct, as the Messages API and the Responses API want
 * it (400: "`tool_use` ids must be unique", "Duplicate function_call_output for call_id"): a
 * call whose id an earlier call had (a provider that numbers each reply's calls, `call_0`
 * every time) is sent as `<id>_<n>`, its n-th use, and so are its results; `messages`
 * themselves when no id comes twice. The same conversation is always sent the same. Give it
 * `readableMessages` (a session's view is a proxy, slow to walk).
 */
export function withDistinctToolIds(messages: readonly Message[]): readonly Message[] {
  // The ids taken, all of them: a new one never meets another call's.
  const { taken, reused } = toolUseIds(messages);
  if (!reused) return messages;
  const uses = new Map<string, number>();
  /** Each id's calls of the last assistant message not answered yet, as sent, in order. */
  const waiting = new Map<string, string[]>();
  /** Each id's latest call, as sent. */
  const latest = new Map<string, string>();
  return messages.map((message) => {
    // Results answer the calls of the assistant message before them.
    if (message.role === "assistant") waiting.clear();
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (block.type === "tool_result") {
        // The first call of its id still waiting (two in one message answered in order), else
        // the latest (a result given twice).
        const sent =
          waiting.get(block.toolUseId)?.shift() ?? latest.get(block.toolUseId) ?? block.toolUseId;
        if (sent === block.toolUseId) return block;
        changed = true;
        return { ...block, toolUseId: sent };
      }
      if (block.type !== "tool_use") return block;
      const use = (uses.get(block.id) ?? 0) + 1;
      uses.set(block.id, use);
      let sent = block.id;
      if (use > 1) {
        sent = `${block.id}_${use}`;
        while (taken.has(sent)) sent += "_";
        taken.add(sent);
      }
      latest.set(block.id, sent);
      const calls = waiting.get(block.id);
      if (calls === undefined) waiting.set(block.id, [sent]);
      else calls.push(sent);
      if (use === 1) return block;
      changed = true;
      return { ...block, id: sent };
    });
    return changed ? { ...message, content } : message;
  });
}

/**
 * The last conversation {@link toolUseIds} found no id twice in, with its ids: a session's next
 * request holds it whole and a few messages more, and only those are walked again.
 */
let walked: { messages: readonly Message[]; taken: Set<string> } | undefined;

/** The tool use ids of `messages`, and whether one comes twice. */
function toolUseIds(messages: readonly Message[]): { taken: Set<string>; reused: boolean } {
  const before = walked;
  walked = undefined;
  const from =
    before !== undefined && continues(messages, before.messages) ? before.messages.length : 0;
  const taken = from > 0 ? before!.taken : new Set<string>();
  let reused = false;
  // Indexed loops: this walks what a session's request added at each step.
  for (let index = from; index < messages.length; index += 1) {
    const { content } = messages[index]!;
    for (let at = 0; at < content.length; at += 1) {
      const block = content[at]!;
      if (block.type !== "tool_use") continue;
      if (taken.has(block.id)) reused = true;
      else taken.add(block.id);
    }
  }
  if (!reused) walked = { messages, taken };
  return { taken, reused };
}

/** Whether `messages` starts with the very objects of `prefix` (a step's request, the last one grown). */
function continues(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (prefix.length === 0 || prefix.length > messages.length) return false;
  for (let index = 0; index < prefix.length; index += 1)
    if (messages[index] !== prefix[index]) return false;
  return true;
}
