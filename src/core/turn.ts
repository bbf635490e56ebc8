import type { Message, TurnId } from "./message.js";

/** The turn id of the compaction summary message. */
export const SUMMARY_TURN_ID: Readonly<TurnId> = Object.freeze({ owner: "u", number: 0 });

/** A string key that identifies a turn id (`owner:number`). */
export function turnKey(turnId: TurnId): string {
  return `${turnId.owner}:${turnId.number}`;
}

/** Whether two turn ids name the same turn (numbers first: they tell turns apart at once). */
export function sameTurn(a: TurnId, b: TurnId): boolean {
  return a.number === b.number && a.owner === b.owner;
}

/** Whether `turnId` is one of `turns`. */
export function isAmongTurns(turns: readonly TurnId[], turnId: TurnId): boolean {
  for (let index = 0; index < turns.length; index += 1)
    if (sameTurn(turns[index]!, turnId)) return true;
  return false;
}

/** Whether a turn id is the summary's ({@link SUMMARY_TURN_ID}). */
export function isSummaryTurn(turnId: TurnId): boolean {
  return sameTurn(turnId, SUMMARY_TURN_ID);
}

/**
 * The unique turn ids of a conversation, in order of first appearance.
 *
 * @example
 * extractTurnIds(session.messages).length // number of turns
 */
export function extractTurnIds(messages: readonly Message[]): TurnId[] {
  const seen = new Set<string>();
  const turnIds: TurnId[] = [];
  let previous: TurnId | undefined;
  for (const message of messages) {
    // Consecutive messages mostly share a turn: skip building its key again.
    if (previous !== undefined && sameTurn(previous, message.turnId)) continue;
    previous = message.turnId;
    const key = turnKey(message.turnId);
    if (!seen.has(key)) {
      seen.add(key);
      turnIds.push({ owner: message.turnId.owner, number: message.turnId.number });
    }
  }
  return turnIds;
}
