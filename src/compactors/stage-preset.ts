import type { CompactAsyncOptions, CompactionOutput, CompactionResult } from "../core/compactor.js";
import { conversationChanged, emptyCompactionResult } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { type LLMCompactor, summarizerOf } from "./llm-compactor.js";
import { foldIntoSummary } from "./summary-fold.js";
import { targetBudget } from "./target.js";
import type { ThresholdCompactor } from "./threshold-compactor.js";
import { maskingChanges, maskToolResults } from "./tool-masking.js";

/**
 * The session's two stages as one compactor: masking (a {@link ThresholdCompactor}), then a
 * summary (an {@link LLMCompactor}) only when masking does not reach `targetUtilization`.
 */
export interface MaskThenSummarize {
  readonly masking: ThresholdCompactor;
  readonly summary: LLMCompactor;
  /** Where the run aims: the summary stage is due only when masking leaves the context above it. */
  readonly targetUtilization: number;
}

/** What a preset run did: the stages' counts, and whether the summary stage ran. */
export interface PresetResult extends CompactionResult {
  /** Whether a summary was written (masking alone could not reach the target). */
  summarized: boolean;
}

/** The output of a preset run. */
export interface PresetOutput {
  conversation: Message[];
  result: PresetResult;
  skipReason?: string;
}

/**
 * Runs the stages on a validated conversation, all or nothing: masking, then, when it is due,
 * the summary, written from the unmasked messages (what masking hid); if the summary fails the
 * run rejects and the masking is not applied either. Without a known context, or in a manual
 * compaction, the summary stage is always due.
 */
export async function maskThenSummarize(
  stages: MaskThenSummarize,
  conversation: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  options: CompactAsyncOptions,
): Promise<PresetOutput> {
  const masked = maskToolResults(conversation, summaries, stages.masking.config, options);
  const tokensBefore = masked.result.tokensBefore ?? estimateTokens(conversation);
  const maskedTokens = masked.result.tokensAfter ?? estimateTokens(masked.conversation);
  const maskOnly = (skipReason?: string): PresetOutput => ({
    conversation: masked.conversation,
    result: { ...masked.result, summarized: false, tokensBefore, tokensAfter: maskedTokens },
    ...(skipReason === undefined ? {} : { skipReason }),
  });
  if (!summaryDue(stages.targetUtilization, options, tokensBefore, maskedTokens)) {
    return maskOnly();
  }
  const folded = await foldIntoSummary(
    summarizerOf(stages.summary),
    masked.conversation,
    conversation,
    summaries,
    options,
  );
  if (folded.result.turnsCompacted === 0) {
    const masking = conversationChanged(conversation, masked.conversation);
    return maskOnly(masking ? undefined : folded.skipReason);
  }
  return {
    conversation: folded.conversation,
    result: {
      ...emptyCompactionResult(),
      ...keptMaskingChanges(conversation, masked.conversation, folded),
      turnsCompacted: folded.result.turnsCompacted,
      summarized: true,
      tokensBefore,
      tokensAfter: estimateTokens(folded.conversation),
      ...(folded.result.usage === undefined ? {} : { usage: folded.result.usage }),
    },
  };
}

/** Whether the summary stage runs after masking left `maskedTokens`: above the target's budget. */
function summaryDue(
  targetUtilization: number,
  options: CompactAsyncOptions,
  tokensBefore: number,
  maskedTokens: number,
): boolean {
  if (options.trigger === "manual") return true;
  const budget = targetBudget(targetUtilization, { ...options, trigger: "auto" }, tokensBefore);
  return budget === undefined || maskedTokens > budget;
}

/** The masking counts of the messages the summary kept: what it folded counts as folded only. */
function keptMaskingChanges(
  conversation: readonly Message[],
  masked: readonly Message[],
  folded: CompactionOutput,
): CompactionResult {
  const kept = new Set(folded.conversation);
  const before: Message[] = [];
  const after: Message[] = [];
  masked.forEach((message, index) => {
    if (!kept.has(message)) return;
    before.push(conversation[index]!);
    after.push(message);
  });
  return maskingChanges(before, after);
}
