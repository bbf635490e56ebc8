import type { CompactionContext } from "../core/compactor.js";
import {
  isSystemMessage,
  latestRequestIndex,
  safeCuts,
  suffixTokenSums,
} from "../core/conversation-structure.js";
import type { Message } from "../core/message.js";
import { recentStart } from "./retention.js";
import { targetBudget } from "./target.js";

/**
 * One cut planner for every compaction that removes a prefix (a fold into a summary, the last
 * resort's trim, a provider's server-side summary): what a cut may be, where retention puts it,
 * what stays, and the search for the earliest cut whose remainder fits. Each caller only says
 * which cuts it takes and what a cut costs; the rules of a conversation's structure live here.
 */

/** What every planner reads of a conversation, computed once per plan. */
export interface CutLayout {
  readonly conversation: readonly Message[];
  /** `safe[cut]`: cutting there splits no tool exchange (see `safeCuts`); `length + 1` entries. */
  readonly safe: readonly boolean[];
  /** `suffix[index]`: the estimated tokens of the messages from `index` on; `suffix[length]` is 0. */
  readonly suffix: readonly number[];
  /** The user's latest request (kept whatever is cut), or -1 when there is none. */
  readonly latestRequest: number;
}

/** The {@link CutLayout} of `conversation`. */
export function cutLayout(conversation: readonly Message[]): CutLayout {
  return {
    conversation,
    safe: safeCuts(conversation),
    suffix: suffixTokenSums(conversation),
    latestRequest: latestRequestIndex(conversation),
  };
}

/** The safe cuts strictly inside the conversation (1 to `length - 1`), ascending. */
export function innerSafeCuts(layout: CutLayout): number[] {
  const cuts: number[] = [];
  for (let cut = 1; cut < layout.conversation.length; cut += 1) {
    if (layout.safe[cut]) cuts.push(cut);
  }
  return cuts;
}

/**
 * Where retention puts the cut: the latest of `candidates` (ascending) at or before the start
 * of the `keepRecentTurns` turns seen last; `undefined` when none is that early.
 */
export function retentionCut(
  layout: CutLayout,
  keepRecentTurns: number,
  candidates: readonly number[],
): number | undefined {
  const start = recentStart(layout.conversation, keepRecentTurns);
  return candidates.findLast((cut) => cut <= start);
}

/**
 * Where keeping the `count` newest tool uses whole puts the cut, inside a turn too: the latest
 * of `candidates` (ascending) at or before the message holding the `count`-th newest tool use;
 * `undefined` when there are fewer tool uses or no candidate is that early.
 */
export function recentToolUsesCut(
  layout: CutLayout,
  count: number,
  candidates: readonly number[],
): number | undefined {
  const { conversation } = layout;
  let seen = 0;
  for (let index = conversation.length - 1; index >= 0; index -= 1) {
    for (const block of conversation[index]!.content) if (block.type === "tool_use") seen += 1;
    if (seen >= count) return candidates.findLast((cut) => cut <= index);
  }
  return undefined;
}

/**
 * The first of `candidates` (in the order given, earliest cut first) whose remainder `fits`,
 * else the last of them: the least a compaction removes to reach its budget, or the most it
 * may remove when no cut reaches it. `undefined` when there is no candidate.
 */
export function firstFittingCut(
  candidates: Iterable<number>,
  fits: (cut: number) => boolean,
): number | undefined {
  let last: number | undefined;
  for (const cut of candidates) {
    if (fits(cut)) return cut;
    last = cut;
  }
  return last;
}

/**
 * The tokens what stays after a cut may take: the target's budget ({@link targetBudget}, the
 * context beyond the messages taken off) less `reserve` (what the compaction writes in place of
 * the prefix). `undefined` when no target applies.
 */
export function remainderBudget(
  targetUtilization: number | undefined,
  context: CompactionContext | undefined,
  messagesEstimate: number,
  reserve = 0,
): number | undefined {
  const budget = targetBudget(targetUtilization, context, messagesEstimate);
  return budget === undefined ? undefined : budget - reserve;
}

/**
 * The end (exclusive) of what stays verbatim of the request at `request` when cutting at `cut`:
 * the request and the system messages right after it (a system message stays with what it
 * follows), never past `cut`. `max(request, 0)` when nothing is kept: no request (-1), or one
 * at or after the cut.
 */
export function keptRequestEnd(
  conversation: readonly Message[],
  request: number,
  cut: number,
): number {
  if (request === -1 || request >= cut) return Math.max(request, 0);
  let end = request + 1;
  while (end < cut && isSystemMessage(conversation[end])) end += 1;
  return end;
}

/**
 * The tokens kept after a cut at `cut`: what follows it, and the latest request kept verbatim
 * before it ({@link keptRequestEnd}).
 */
export function keptTokens(layout: CutLayout, cut: number): number {
  const { conversation, suffix, latestRequest: latest } = layout;
  if (latest === -1 || latest >= cut) return suffix[cut]!;
  return suffix[cut]! + suffix[latest]! - suffix[keptRequestEnd(conversation, latest, cut)]!;
}

/**
 * Whether the message at `index` stays verbatim before a cut at `cut`: the request at `request`
 * or a system message right after it ({@link keptRequestEnd}).
 */
export function isKeptRequest(
  conversation: readonly Message[],
  request: number,
  cut: number,
  index: number,
): boolean {
  return index >= request && index < keptRequestEnd(conversation, request, cut);
}
