import type { Message, TurnId } from "../core/message.js";
import { isSummaryTurn, sameTurn, turnKey } from "../core/turn.js";

/**
 * Where the recent part starts before any tool-pair adjustment: the longest suffix whose
 * messages belong to the `keepRecentTurns` turns seen last. Turns are ordered by their last
 * appearance, so a hand-numbered turn id that comes back (a restarted counter) is recent, not
 * old. The summary turn never counts as a turn.
 */
export function recentStart(conversation: readonly Message[], keepRecentTurns: number): number {
  const recent = new Set<string>();
  for (let index = conversation.length - 1; index >= 0; index -= 1) {
    const turnId = conversation[index]!.turnId;
    if (isSummaryTurn(turnId)) continue;
    const key = turnKey(turnId);
    if (recent.has(key)) continue;
    if (recent.size === keepRecentTurns) return index + 1;
    recent.add(key);
  }
  return 0;
}

/** The distinct turns of the messages from `start` on, the summary turn left out. */
export function turnsFrom(conversation: readonly Message[], start: number): TurnId[] {
  const turns: TurnId[] = [];
  for (let index = start; index < conversation.length; index += 1) {
    const turnId = conversation[index]!.turnId;
    if (!isSummaryTurn(turnId) && !turns.some((known) => sameTurn(known, turnId))) {
      turns.push(turnId);
    }
  }
  return turns;
}
