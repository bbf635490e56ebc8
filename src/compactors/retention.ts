import type { Message } from "../core/message.js";
import { extractTurnIds, isSummaryTurn, turnKey } from "../core/turn.js";

/**
 * Keys of the turns older than the `keepRecentTurns` most recent ones. The summary turn
 * never counts as a turn, so an already compacted conversation is not compacted again.
 */
export function oldTurnKeys(
  conversation: readonly Message[],
  keepRecentTurns: number,
): Set<string> {
  const turns = extractTurnIds(conversation).filter((turnId) => !isSummaryTurn(turnId));
  if (turns.length <= keepRecentTurns) return new Set();
  return new Set(turns.slice(0, turns.length - keepRecentTurns).map(turnKey));
}

/**
 * Where the recent part starts: the first message of a recent turn, moved earlier until no
 * tool result in the recent part answers a tool use before it. Everything from the cut on is
 * kept, so messages of old turns that appear late (irregular numbering) are never lost.
 */
export function safeCutIndex(conversation: readonly Message[], keepRecentTurns: number): number {
  const old = oldTurnKeys(conversation, keepRecentTurns);
  if (old.size === 0) return 0;
  let cut = conversation.findIndex(
    (message) => !old.has(turnKey(message.turnId)) && !isSummaryTurn(message.turnId),
  );
  if (cut === -1) return 0;

  const toolUseIndex = new Map<string, number>();
  conversation.forEach((message, index) => {
    for (const block of message.content) {
      if (block.type === "tool_use") toolUseIndex.set(block.id, index);
    }
  });

  // Moving the cut earlier pulls in more messages, whose results may point earlier still.
  let scanned = conversation.length;
  while (cut < scanned) {
    const scanFrom = cut;
    for (let index = cut; index < scanned; index += 1) {
      for (const block of conversation[index]!.content) {
        if (block.type !== "tool_result") continue;
        const useIndex = toolUseIndex.get(block.toolUseId);
        if (useIndex !== undefined && useIndex < cut) cut = useIndex;
      }
    }
    scanned = scanFrom;
  }
  return cut;
}
