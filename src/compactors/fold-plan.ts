import type { CompactionContext } from "../core/compactor.js";
import { hasUserText } from "../core/conversation-structure.js";
import type { Message } from "../core/message.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import {
  type CutLayout,
  cutLayout,
  firstFittingCut,
  innerSafeCuts,
  isKeptRequest,
  retentionCut,
} from "./cut-plan.js";
import type { LLMCompactorOptions } from "./llm-compactor.js";
import { keptPartStart } from "./retention.js";
import { userWordsBudget } from "./summary-message.js";
import { targetBudget } from "./target.js";

/**
 * Which messages a summary folds: those before `cut`, except `keepIndex` (kept verbatim, with
 * the system messages right after it) and `keepWords` (the user's latest words beside tool
 * results, kept verbatim with the assistant message whose calls they answer).
 */
export interface FoldPlan {
  cut: number;
  keepIndex?: number;
  keepWords?: number;
}

/** The options that decide how far a fold goes. */
export type FoldPlanOptions = Pick<
  LLMCompactorOptions,
  | "keepRecentTurns"
  | "targetUtilization"
  | "maxSummaryTokens"
  | "keepUserMessagesTokens"
  | "keepRecentToolUses"
  | "keepRecentShare"
>;

/**
 * Plans the fold: the turns older than `keepRecentTurns`, and, when a target is known and
 * that would not reach it (or in a manual compaction, always), later safe cut points (never
 * between a tool use and its result), oldest first, up to the latest assistant message, and in
 * an automatic compaction never into the kept part (`keepRecentToolUses`, `keepRecentShare`).
 * Past the latest user request, that request is kept verbatim right after the summary.
 * `undefined` when nothing is old enough.
 */
export function planFold(
  conversation: readonly Message[],
  options: Readonly<FoldPlanOptions>,
  context: CompactionContext,
): FoldPlan | undefined {
  const layout = cutLayout(conversation);
  const { suffix, latestRequest: latest } = layout;
  const base = retentionCut(layout, options.keepRecentTurns, innerSafeCuts(layout)) ?? 0;
  // The latest request stays verbatim even when its turn is old (a previous fold kept it
  // beside the summary), so folding again finds nothing new: idempotent.
  // So do the user's latest words when they sit beside tool results after it (a user who
  // spoke while tools ran): with the calls they answer, so nothing is orphaned.
  const words = conversation.findLastIndex(hasUserText);
  const keepsWords = words > latest && conversation[words - 1]?.role === "assistant";
  const planAt = (cut: number): FoldPlan => ({
    cut,
    ...(latest !== -1 && latest < cut ? { keepIndex: latest } : {}),
    ...(keepsWords && words < cut ? { keepWords: words } : {}),
  });
  const baseline = base === 0 ? undefined : planAt(base);
  // A manual compaction is at least as strong as an automatic one: it folds as far as the
  // rules allow (inside the latest turn too, when nothing older is left).
  const budget =
    context.trigger === "manual"
      ? Number.NEGATIVE_INFINITY
      : targetBudget(options.targetUtilization, context, suffix[0]!);
  if (budget === undefined) return baseline;

  const reserve =
    options.maxSummaryTokens +
    userWordsBudget(options.keepUserMessagesTokens, context.contextLimit);
  const fits = (plan: FoldPlan) =>
    reserve +
      suffix[plan.cut]! +
      keptVerbatim(conversation, plan).reduce(
        (sum, message) => sum + estimateMessageTokens(message),
        0,
      ) <=
    budget;
  if (baseline === undefined ? suffix[0]! <= budget : fits(baseline)) return baseline;
  if (latest === -1) return baseline;
  // An automatic fold inside the recent turns keeps the part the agent has just read, as the
  // conversation after the turns it folds shows it: what a second pass finds (idempotent).
  const keptAfterBase =
    context.trigger === "manual"
      ? undefined
      : keptPartStart(conversation.slice(base), options, context.contextLimit);
  const kept = keptAfterBase === undefined ? undefined : base + keptAfterBase;
  const candidates = laterCuts(layout, base).filter((cut) => kept === undefined || cut <= kept);
  const cut = firstFittingCut(candidates, (candidate) => fits(planAt(candidate)));
  return cut === undefined ? baseline : planAt(cut);
}

/**
 * The safe cuts after `base` a fold may move to, ascending: up to the latest assistant message
 * after the latest request (user words beside tool results before it are folded, and kept
 * verbatim beside the summary like every folded word of the user's). Right after the request
 * and its system messages a fold would keep everything after it, so those are left out.
 */
function laterCuts(layout: CutLayout, base: number): number[] {
  const { conversation, safe, latestRequest: latest } = layout;
  let lastAssistant = -1;
  for (let index = conversation.length - 1; index > latest; index -= 1) {
    if (conversation[index]!.role === "assistant") {
      lastAssistant = index;
      break;
    }
  }
  const limit = lastAssistant === -1 ? latest : lastAssistant;
  const cuts: number[] = [];
  for (let cut = base + 1; cut <= limit; cut += 1) {
    if (!safe[cut] || (cut > latest && isKeptRequest(conversation, latest, cut, cut - 1))) continue;
    cuts.push(cut);
  }
  return cuts;
}

/**
 * Whether `index` is kept verbatim before the cut ({@link keptVerbatim}): the kept request or a
 * system message right after it, or the kept words and the message before them.
 */
function isKept(messages: readonly Message[], plan: FoldPlan, index: number): boolean {
  if (plan.keepWords !== undefined && (index === plan.keepWords || index === plan.keepWords - 1))
    return true;
  return plan.keepIndex !== undefined && isKeptRequest(messages, plan.keepIndex, plan.cut, index);
}

/**
 * The messages before a plan's cut kept verbatim after the summary: the latest request, with
 * the system messages that follow it (a system message stays with what it follows), and the
 * user's latest words beside tool results with the calls they answer, in their order.
 */
export function keptVerbatim(messages: readonly Message[], plan: FoldPlan): Message[] {
  return messages.slice(0, plan.cut).filter((_, index) => isKept(messages, plan, index));
}

/** The messages a plan folds into the summary, in order: those before its cut but the kept ones. */
export function foldedMessages(messages: readonly Message[], plan: FoldPlan): Message[] {
  return messages.slice(0, plan.cut).filter((_, index) => !isKept(messages, plan, index));
}
