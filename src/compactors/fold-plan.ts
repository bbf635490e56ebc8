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
import { userWordsBudget } from "./summary-message.js";
import { targetBudget } from "./target.js";

/**
 * Which messages a summary folds: those before `cut`, except `keepIndex` (kept verbatim, with
 * the system messages right after it).
 */
export interface FoldPlan {
  cut: number;
  keepIndex?: number;
}

/** The options that decide how far a fold goes. */
export type FoldPlanOptions = Pick<
  LLMCompactorOptions,
  "keepRecentTurns" | "targetUtilization" | "maxSummaryTokens" | "keepUserMessagesTokens"
>;

/**
 * Plans the fold: the turns older than `keepRecentTurns`, and, when a target is known and
 * that would not reach it (or in a manual compaction, always), later safe cut points (never between a tool use and its result),
 * oldest first, up to the latest assistant message. Past the latest user request, that
 * request is kept verbatim right after the summary. `undefined` when nothing is old enough.
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
  const planAt = (cut: number): FoldPlan =>
    latest !== -1 && latest < cut ? { cut, keepIndex: latest } : { cut };
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
  const cut = firstFittingCut(laterCuts(layout, base), (candidate) => fits(planAt(candidate)));
  return cut === undefined ? baseline : planAt(cut);
}

/**
 * The safe cuts after `base` a fold may move to, ascending: up to the latest assistant message
 * after the latest request, and never past user words sharing a message with tool results
 * (they cannot be kept apart from their tool use). Right after the request and its system
 * messages a fold would keep everything after it, so those are left out.
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
  const words = conversation.findLastIndex(hasUserText);
  const limit = Math.min(
    lastAssistant === -1 ? latest : lastAssistant,
    words > latest ? words : Number.POSITIVE_INFINITY,
  );
  const cuts: number[] = [];
  for (let cut = base + 1; cut <= limit; cut += 1) {
    if (!safe[cut] || (cut > latest && isKeptRequest(conversation, latest, cut, cut - 1))) continue;
    cuts.push(cut);
  }
  return cuts;
}

/** Whether `index` is the kept request or a system message right after it ({@link keptVerbatim}). */
function isKept(messages: readonly Message[], plan: FoldPlan, index: number): boolean {
  return plan.keepIndex !== undefined && isKeptRequest(messages, plan.keepIndex, plan.cut, index);
}

/**
 * The messages before a plan's cut kept verbatim after the summary: the latest request, with
 * the system messages that follow it (a system message stays with what it follows).
 */
export function keptVerbatim(messages: readonly Message[], plan: FoldPlan): Message[] {
  return messages.slice(0, plan.cut).filter((_, index) => isKept(messages, plan, index));
}

/** The messages a plan folds into the summary, in order: those before its cut but the kept ones. */
export function foldedMessages(messages: readonly Message[], plan: FoldPlan): Message[] {
  return messages.slice(0, plan.cut).filter((_, index) => !isKept(messages, plan, index));
}
