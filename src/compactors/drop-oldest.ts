import {
  type CompactionContext,
  type CompactionOutput,
  emptyCompactionResult,
} from "../core/compactor.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import { keepingTrimOptions, trimOldest } from "./overflow-trim.js";
import { keptPartStart } from "./retention.js";
import { minimumGain, targetBudget } from "./target.js";

/** What {@link dropToTarget} needs of its compactor's settings. */
export interface DropSettings {
  /** The compactor's trigger: what stays never exceeds it, even at the cost of recent tool uses. */
  threshold: number;
  targetUtilization?: number | undefined;
  /** The newest tool uses masking keeps: removal keeps them too. */
  keepRecentToolUses?: number | false | undefined;
  /** The newest share of the window masking keeps whole: removal keeps it too. */
  keepRecentShare?: number | undefined;
  clearAtLeast: number;
  clock?: Clock | undefined;
}

/**
 * The second half of one rewrite: when masking left the conversation above the target, the
 * oldest messages go too, as the session's last resort removes them (never splitting a tool
 * exchange, summaries and the latest request kept, a notice carrying the user's words and the
 * file ledger within their budgets). The session archives what goes under recall handles. The
 * minimum gain (`clearAtLeast`) is judged on the whole rewrite, masking and removal together.
 * `masked` is the masking pass over `input`, run without a minimum gain.
 */
export function dropToTarget(
  input: readonly Message[],
  masked: CompactionOutput,
  settings: DropSettings,
  context: CompactionContext | undefined,
  tokensBefore: number,
): CompactionOutput {
  const output = withOldestDropped(input, masked, settings, context, tokensBefore);
  if (output === masked && masked.skipReason !== undefined) return masked;
  const freed = tokensBefore - (output.result.tokensAfter ?? tokensBefore);
  if (freed >= minimumGain(settings.clearAtLeast, context)) return output;
  return {
    conversation: [...input],
    result: { ...emptyCompactionResult(), tokensBefore, tokensAfter: tokensBefore },
    skipReason: `the rewrite would free ${freed} tokens, under clearAtLeast`,
  };
}

/** `masked`, then the oldest messages removed down to the target when it is still above it. */
function withOldestDropped(
  input: readonly Message[],
  masked: CompactionOutput,
  settings: DropSettings,
  context: CompactionContext | undefined,
  tokensBefore: number,
): CompactionOutput {
  const budget = targetBudget(settings.targetUtilization, context, tokensBefore);
  if (budget === undefined || (masked.result.tokensAfter ?? tokensBefore) <= budget) return masked;
  // The notice reads what masking replaced in the messages it removes from `input`.
  const options = {
    ...keepingTrimOptions(context?.contextLimit, settings.clock),
    originals: input,
  };
  // The newest tool exchanges masking kept stay whole: the agent has just read them...
  const kept = keptPartStart(masked.conversation, settings, context?.contextLimit);
  let trimmed = trimOldest(
    masked.conversation,
    budget,
    kept === undefined ? options : { ...options, latestCut: kept },
  );
  let tokensAfter =
    trimmed === undefined
      ? (masked.result.tokensAfter ?? tokensBefore)
      : estimateTokens(trimmed.conversation);
  // ...unless keeping them would leave the context above the trigger.
  const ceiling = targetBudget(settings.threshold, context, tokensBefore) ?? budget;
  if (kept !== undefined && tokensAfter > ceiling) {
    const deeper = trimOldest(masked.conversation, ceiling, options);
    if (deeper !== undefined) {
      trimmed = deeper;
      tokensAfter = estimateTokens(deeper.conversation);
    }
  }
  if (trimmed === undefined) return masked;
  return {
    conversation: trimmed.conversation,
    result: {
      ...masked.result,
      messagesRemoved: trimmed.removed.length,
      tokensBefore,
      tokensAfter,
    },
  };
}
