import type { Message, TurnId } from "../core/message.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import { isAmongTurns, isSummaryTurn, sameTurn, turnKey } from "../core/turn.js";

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
    if (!isSummaryTurn(turnId) && !isAmongTurns(turns, turnId)) {
      turns.push(turnId);
    }
  }
  return turns;
}

/**
 * What a compactor keeps whole at the end of a conversation, whatever its target: the newest
 * `toolUses` tool uses and the newest `tokens` estimated tokens (the agent has just read them).
 */
export interface KeptPart {
  toolUses?: number | undefined;
  tokens?: number | undefined;
  /**
   * The most tokens the tool uses kept take, so that a compaction leaves room for the next
   * steps (large tool results kept whole would otherwise hold the context at the compactor's
   * threshold, compacting at every request). The newest step (its tool uses, all of their
   * results, what followed) is kept whatever its size.
   */
  toolUsesUpTo?: number | undefined;
}

/**
 * Where the kept part starts, and the tool uses of the messages from there on: walking back
 * from the end, the messages until both `toolUses` tool uses (as many as `toolUsesUpTo` allows,
 * the newest always) and `tokens` tokens are covered, from the earlier of the two (all of the
 * tool uses and from `0` when the conversation has fewer); the conversation's length when the
 * part asks for nothing.
 */
export function keptPart(
  conversation: readonly Message[],
  part: KeptPart,
): { start: number; uses: number } {
  const tokens = part.tokens ?? 0;
  let toolUses = part.toolUses ?? 0;
  if (toolUses <= 0 && tokens <= 0) return { start: conversation.length, uses: 0 };
  const upTo = part.toolUsesUpTo ?? Number.POSITIVE_INFINITY;
  let uses = 0;
  let covered = 0;
  // The message holding the oldest tool use counted, and the newest from which the tokens are
  // covered: the part starts at the earlier of the two, whether the walk ends at the cap, at
  // the conversation's start, or where both are covered (the same rule for each, so that what
  // the part keeps does not hang on how many older tool uses there are: a fold that removes
  // them leaves it where it was).
  let usesStart = conversation.length;
  let tokensStart = tokens > 0 ? -1 : usesStart;
  // Whether the walk is past the newest step (from the last assistant message on), kept whatever
  // the cap: beyond it, the cap binds even before a tool use is counted (the messages after an
  // old tool use would otherwise all be kept with it).
  let pastNewestStep = false;
  for (let index = conversation.length - 1; index >= 0; index -= 1) {
    const message = conversation[index]!;
    const size = estimateMessageTokens(message);
    // Past the cap, the tool uses counted so far (the newest step's at least) are all it keeps.
    if ((uses > 0 || pastNewestStep) && uses < toolUses && covered + size > upTo) {
      toolUses = uses;
      if (covered >= tokens) return { start: Math.min(usesStart, tokensStart), uses };
    }
    for (const block of message.content)
      if (block.type === "tool_use") {
        uses += 1;
        usesStart = index;
      }
    covered += size;
    if (message.role === "assistant") pastNewestStep = true;
    if (tokensStart < 0 && covered >= tokens) tokensStart = index;
    if (uses >= toolUses && covered >= tokens) return { start: index, uses };
  }
  // Fewer tool uses than asked: all of them, and the tokens (all of them when not covered).
  return { start: Math.min(usesStart, Math.max(tokensStart, 0)), uses };
}

/**
 * How many of the newest tool uses a compactor keeps whole: `keepRecentToolUses`, or fewer
 * (those of the newest step at least) when those would take more than halfway from its target
 * to its threshold; `undefined` when it keeps tool uses by turn only.
 */
export function keptToolUses(
  conversation: readonly Message[],
  settings: RetentionSettings,
  contextLimit: number | undefined,
): number | undefined {
  const toolUses = settings.keepRecentToolUses;
  if (toolUses === false || toolUses === undefined) return undefined;
  const toolUsesUpTo = toolUsesCap(settings, contextLimit);
  if (toolUsesUpTo === undefined) return toolUses;
  return Math.min(keptPart(conversation, { toolUses, toolUsesUpTo }).uses, toolUses);
}

/**
 * The tokens a compactor's kept tool uses may take: the share of the window halfway from its
 * target to its threshold (a compaction then frees at least half of what lies between them);
 * `undefined` unless both and the window are known.
 */
function toolUsesCap(settings: RetentionSettings, contextLimit: number | undefined) {
  const { threshold, targetUtilization: target } = settings;
  if (threshold === undefined || target === undefined || !(contextLimit! > 0)) return undefined;
  return ((threshold + target) / 2) * contextLimit!;
}

/** The retention settings every compactor of ours reads: turns, tool uses, share of the window. */
export interface RetentionSettings {
  keepRecentTurns?: number | undefined;
  keepRecentToolUses?: number | false | undefined;
  keepRecentShare?: number | undefined;
  /** The compactor's threshold and target: the tool uses kept whole take no more than halfway. */
  threshold?: number | undefined;
  targetUtilization?: number | undefined;
}

/**
 * Where the part a compactor keeps whole starts ({@link keptPart}): the newest tool uses (as
 * many as fit halfway from its target to its threshold, the newest step always) and the
 * newest share of the window it keeps (`0`: all of it); `undefined` when it keeps neither.
 */
export function keptPartStart(
  conversation: readonly Message[],
  settings: RetentionSettings,
  contextLimit: number | undefined,
): number | undefined {
  const toolUses = settings.keepRecentToolUses === false ? 0 : settings.keepRecentToolUses;
  const share = settings.keepRecentShare;
  const tokens = share === undefined || contextLimit === undefined ? 0 : share * contextLimit;
  const toolUsesUpTo = toolUsesCap(settings, contextLimit);
  const { start } = keptPart(conversation, { toolUses, tokens, toolUsesUpTo });
  return start === conversation.length ? undefined : start;
}

/**
 * Where the kept part starts when `keepRecentShare` asks for one: the newest share of the window
 * and the newest `keepRecentToolUses` tool uses, in any turn ({@link keptPartStart}); the
 * conversation's length without one.
 */
export function keptPartFrom(
  conversation: readonly Message[],
  settings: RetentionSettings,
  contextLimit: number | undefined,
): number {
  if (settings.keepRecentShare === undefined || !(contextLimit! > 0)) return conversation.length;
  return keptPartStart(conversation, settings, contextLimit) ?? conversation.length;
}

/**
 * Where everything a compactor's retention keeps starts: the earliest of its recent turns and
 * its kept part ({@link keptPartStart}). What a follow-up trim leaves alone.
 */
export function retainedStart(
  conversation: readonly Message[],
  settings: RetentionSettings,
  contextLimit: number | undefined,
): number {
  const turns =
    settings.keepRecentTurns === undefined
      ? conversation.length
      : recentStart(conversation, settings.keepRecentTurns);
  return Math.min(
    turns,
    keptPartStart(conversation, settings, contextLimit) ?? conversation.length,
  );
}

/** The index of the last message that passes `test`; -1 when none does. */
export function lastIndexWhere(
  conversation: readonly Message[],
  test: (message: Message) => boolean,
): number {
  for (let index = conversation.length - 1; index >= 0; index -= 1)
    if (test(conversation[index]!)) return index;
  return -1;
}

/**
 * Index of the message whose tool results are never compacted whatever the settings: the
 * newest results (the last message holding tool results), when they belong to the turn of the
 * last message; -1 when there is none.
 */
export function newestResultsIndex(conversation: readonly Message[]): number {
  const last = conversation.at(-1);
  const index = lastIndexWhere(
    conversation,
    (message) =>
      message.role === "user" && message.content.some((block) => block.type === "tool_result"),
  );
  const newest = conversation[index];
  if (last === undefined || newest === undefined || !sameTurn(newest.turnId, last.turnId))
    return -1;
  return index;
}
