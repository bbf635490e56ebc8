import type { ContentBlock, Message } from "./message.js";

/**
 * `messages` with every tool use's id distinct, as the Messages API and the Responses API want
 * it (400: "`tool_use` ids must be unique", "Duplicate function_call_output for call_id"): a
 * call whose id an earlier, answered call had (a provider that numbers each reply's calls,
 * `call_0` every time) is sent as `<id>_<n>`, its n-th use, and so are its results; `messages`
 * themselves when no id comes twice. A call is named from the calls before it alone, so a
 * request sends the one before it unchanged (its cache and its thinking stay valid): a later
 * call that has an earlier one's new id is renamed in turn. Give it `readableMessages` (a
 * session's view is a proxy, slow to walk).
 */
export function withDistinctToolIds(messages: readonly Message[]): readonly Message[] {
  if (!toolUseIds(messages).reused) return messages;
  /** The ids sent so far: a new one never meets an earlier call's. */
  const taken = new Set<string>();
  const uses = new Map<string, number>();
  /** Each id's latest call, as sent, and whether a result answered it. */
  const latest = new Map<string, { sent: string; answered: boolean }>();
  let renamed = false;
  const out = messages.map((message) => {
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (block.type === "tool_result") {
        const call = latest.get(block.toolUseId);
        if (call === undefined) return block;
        call.answered = true;
        if (call.sent === block.toolUseId) return block;
        changed = true;
        return { ...block, toolUseId: call.sent };
      }
      if (block.type !== "tool_use") return block;
      const before = latest.get(block.id);
      // Sent anew: the id of an answered call, or one an earlier call was renamed to. One given
      // while the call of that id still waits (two in one message, malformed) goes as it came,
      // as do its results (they answer the latest call of their id, not the one left waiting,
      // even where that one was renamed).
      if (before === undefined ? !taken.has(block.id) : !before.answered) {
        taken.add(block.id);
        latest.set(block.id, { sent: block.id, answered: false });
        return block;
      }
      const use = (uses.get(block.id) ?? 1) + 1;
      uses.set(block.id, use);
      let sent = `${block.id}_${use}`;
      while (taken.has(sent)) sent += "_";
      taken.add(sent);
      latest.set(block.id, { sent, answered: false });
      changed = true;
      return { ...block, id: sent };
    });
    renamed ||= changed;
    return changed ? { ...message, content } : message;
  });
  return renamed ? out : messages;
}

/** Whether a call of `messages` has the id of an earlier call (see {@link withDistinctToolIds}). */
export function reusesToolIds(messages: readonly Message[]): boolean {
  return toolUseIds(messages).reused;
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
