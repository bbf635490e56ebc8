import { startsWithCompaction } from "../core/conversation-structure.js";
import type { Message } from "../core/message.js";
import { isSummaryTurn } from "../core/turn.js";

/**
 * `compacted` with every pinned message of `from` as it was: one a compaction changed is put
 * back unchanged; one it removed comes back right after the summary (the leading summary-turn
 * messages), in its original order. Pinned messages are user messages without tool results,
 * so they never split a tool exchange wherever they stand.
 */
export function restorePinned(
  from: readonly Message[],
  compacted: readonly Message[],
  pinned: ReadonlySet<string>,
): readonly Message[] {
  if (pinned.size === 0) return compacted;
  const originals = new Map(
    from.filter((message) => pinned.has(message.id)).map((message) => [message.id, message]),
  );
  if (originals.size === 0) return compacted;
  const present = new Set<string>();
  const restored = compacted.map((message) => {
    const original = originals.get(message.id);
    if (original === undefined) return message;
    present.add(message.id);
    return original;
  });
  const missing = [...originals.values()].filter((message) => !present.has(message.id));
  if (missing.length === 0) return restored;
  let at = 0;
  while (at < restored.length && isSummaryTurn(restored[at]!.turnId)) at += 1;
  // The pinned messages that opened the conversation stay ahead of the summary, byte for byte:
  // a stable head the prompt cache still holds after the compaction.
  // Not before the API's own compaction block, which must lead.
  let head = 0;
  if (!startsWithCompaction(restored[0]))
    while (head < from.length && pinned.has(from[head]!.id)) head += 1;
  const heads = new Set(from.slice(0, head));
  const leading = missing.filter((message) => heads.has(message));
  const rest = missing.filter((message) => !heads.has(message));
  return [...leading, ...restored.slice(0, at), ...rest, ...restored.slice(at)];
}
