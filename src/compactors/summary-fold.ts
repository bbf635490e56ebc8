import { throwIfAborted } from "../core/abort.js";
import {
  type CompactAsyncOptions,
  type CompactionOutput,
  emptyCompactionResult,
} from "../core/compactor.js";
import type { Message, ToolResultBlock } from "../core/message.js";
import { systemClock } from "../core/message-factory.js";
import { estimateMessageTokens, estimateTokens } from "../core/message-memo.js";
import { charsToTokens } from "../core/tokens.js";
import { isSummaryTurn, turnKey } from "../core/turn.js";
import { checkSummaryFacts, factsSectionBudget } from "./facts-check.js";
import { collectFileLedger, ledgerBudget, renderFileLedger } from "./file-ledger.js";
import { collectOutlines, outlineBudget, pathsRead, renderOutlines } from "./file-outline.js";
import { type FoldPlan, foldedMessages, keptVerbatim, planFold } from "./fold-plan.js";
import type { LLMCompactorOptions } from "./llm-compactor.js";
import {
  summaryFramingTokens,
  summaryMessage,
  type UserWords,
  userWordsBudget,
  userWordsToKeep,
} from "./summary-message.js";
import { type Summarizer, writeSummary } from "./summary-request.js";
import { minimumGain } from "./target.js";

export type { Summarizer } from "./summary-request.js";

/**
 * The least a fold must free before the summary's own text, in estimated tokens: the folded
 * part's estimate minus what stands in its place even with an empty summary (the summary
 * message's framing and the user messages it keeps verbatim). Below it no summary is asked
 * for: even a one-sentence summary (about 128 characters) would take all of the gain.
 */
export const MIN_FOLD_GAIN_TOKENS = 32;

const SKIP_NOTHING_OLD = "no turn is old enough to fold";
const SKIP_ONLY_SUMMARIES = "only earlier summaries are old enough to fold";
const SKIP_TOO_SMALL = "the part to fold is too small for a summary to shrink the conversation";
const SKIP_NOT_SHRINKING = "the summary would not shrink the conversation";

/**
 * Folds a prefix of `conversation` into one summary message (turn `u0`), the summary written
 * from the same messages of `source` (same length and order; the hybrid passes the unmasked
 * originals so the summarizer sees what masking hid). Trusts its arguments: validate them
 * first. Resolves unchanged, with a `skipReason`, when there is nothing worth folding or the
 * summary would not shrink the conversation; rejects with `CompactionError` when the
 * summarizer fails or `options.signal` fires.
 */
export async function foldIntoSummary(
  summarizer: Summarizer,
  conversation: readonly Message[],
  source: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  options: CompactAsyncOptions = {},
): Promise<CompactionOutput> {
  const { signal } = options;
  throwIfAborted(signal);
  const skip = (skipReason: string): CompactionOutput => ({
    conversation: [...conversation],
    result: emptyCompactionResult(),
    skipReason,
  });
  const fold = planSummary(summarizer.options, conversation, source, options);
  if (typeof fold === "string") return skip(fold);
  const { summary, usage } = await writeSummary(summarizer, {
    conversation,
    source,
    plan: fold.plan,
    foldedSource: fold.foldedSource,
    summaries,
    userRequests: fold.userRequests,
    options,
  });
  throwIfAborted(signal);
  const output = placeSummary(summarizer.options, conversation, fold, summary, options);
  if (output === undefined) return skip(SKIP_NOT_SHRINKING);
  if (usage !== undefined) output.result.usage = usage;
  return output;
}

/** A fold worth a summary: what it folds, as the agent sent it and as the summarizer reads it. */
interface PlannedFold {
  plan: FoldPlan;
  turnsCompacted: number;
  foldedTokens: number;
  /** The folded messages as the summarizer reads them (originals restored). */
  foldedSource: Message[];
  /** The user's words of the folded part, all of them, for the prompt. */
  userRequests: string[];
  /** Those kept verbatim beside the summary, within their budget. */
  verbatim: UserWords[];
  /** The directives block kept beside them (`""` for none). */
  directives: string;
}

/** The fold worth a summary, or why there is none (a skip reason). */
function planSummary(
  settings: Readonly<LLMCompactorOptions>,
  conversation: readonly Message[],
  source: readonly Message[],
  options: CompactAsyncOptions,
): PlannedFold | string {
  const plan = planFold(conversation, settings, options);
  if (plan === undefined) return SKIP_NOTHING_OLD;
  const folded = foldedMessages(conversation, plan);
  const turnsCompacted = new Set(
    folded.filter((message) => !isSummaryTurn(message.turnId)).map((m) => turnKey(m.turnId)),
  ).size;
  if (turnsCompacted === 0) return SKIP_ONLY_SUMMARIES;
  const foldedSource = withOriginals(
    source.length === conversation.length ? foldedMessages(source, plan) : folded,
    options.originals,
  );
  const words = userWordsToKeep(
    foldedSource,
    userWordsBudget(settings.keepUserMessagesTokens, options.contextLimit),
  );
  const foldedTokens = estimateTokens(folded);
  const gainBeforeSummary =
    foldedTokens - summaryFramingTokens(words.verbatim) - charsToTokens(words.directives.length);
  if (gainBeforeSummary < MIN_FOLD_GAIN_TOKENS) return SKIP_TOO_SMALL;
  const clearAtLeast = minimumGain(settings.clearAtLeast, options);
  if (clearAtLeast > 0 && gainBeforeSummary - settings.maxSummaryTokens < clearAtLeast) {
    return `a summary could free fewer than clearAtLeast (${clearAtLeast}) tokens`;
  }
  return {
    plan,
    turnsCompacted,
    foldedTokens,
    foldedSource,
    userRequests: words.all.map((each) => each.text),
    verbatim: words.verbatim,
    directives: words.directives,
  };
}

/**
 * The conversation with the summary message in the folded part's place: the summary, the facts
 * it missed, the file ledger and the verbatim user words (which give way, oldest first, before
 * the summary may fail to shrink it). `undefined` when it would not shrink the conversation.
 */
function placeSummary(
  settings: Readonly<LLMCompactorOptions>,
  conversation: readonly Message[],
  fold: PlannedFold,
  summary: string,
  options: CompactAsyncOptions,
): CompactionOutput | undefined {
  const { plan, verbatim, foldedSource } = fold;
  const where = {
    sessionId: conversation[0]?.sessionId ?? "",
    clock: settings.clock ?? systemClock,
  };
  const tokensBefore = estimateTokens(conversation);
  const unfoldedTokens = tokensBefore - fold.foldedTokens;
  const stays = [...keptVerbatim(conversation, plan), ...conversation.slice(plan.cut)];
  // What the folded part said that neither the summary nor what stays holds.
  const factsTokens = factsSectionBudget(settings.factsSectionTokens, options.contextLimit);
  const facts =
    factsTokens > 0
      ? checkSummaryFacts({
          folded: foldedSource,
          summary: [summary, fold.directives, ...verbatim.map((each) => each.text)].join("\n"),
          kept: stays,
          maxTokens: factsTokens,
          cite: true,
        })
      : undefined;
  // What gives way when the message would not shrink the conversation: the file records (the
  // outlines first), then the verbatim user words, oldest first.
  const records = [
    fold.directives,
    facts?.section ?? "",
    ...fileRecords(foldedSource, stays, options.contextLimit),
  ];
  let kept = verbatim;
  let message = summaryMessage(summary, kept, where, records);
  const shrinks = () => unfoldedTokens + estimateMessageTokens(message) < tokensBefore;
  while (!shrinks() && records.length > 1) {
    records.pop();
    message = summaryMessage(summary, kept, where, records);
  }
  while (!shrinks() && kept.length > 0) {
    kept = kept.slice(1);
    message = summaryMessage(summary, kept, where, records);
  }
  const tokensAfter = unfoldedTokens + estimateMessageTokens(message);
  if (tokensAfter >= tokensBefore) return undefined;
  return {
    conversation: [message, ...stays],
    result: {
      ...emptyCompactionResult(),
      turnsCompacted: fold.turnsCompacted,
      tokensBefore,
      tokensAfter,
      ...(facts === undefined || facts.added.length === 0
        ? {}
        : { factsAdded: facts.added.map((fact) => `${fact.kind}: ${fact.text}`) }),
    },
  };
}

/**
 * The library's records of the files a folded part touched, kept beside its summary: the file
 * ledger (from the tool calls' inputs) and the outlines of the files it read (but those read
 * again in what stays).
 */
function fileRecords(
  folded: readonly Message[],
  stays: readonly Message[],
  contextLimit: number | undefined,
): string[] {
  return [
    renderFileLedger(collectFileLedger(folded), ledgerBudget(contextLimit)),
    renderOutlines(collectOutlines(folded), outlineBudget(contextLimit), pathsRead(stays)),
  ];
}

/** `messages` with each placeholder tool result replaced by its original, where one is known. */
function withOriginals(
  messages: Message[],
  originals: ReadonlyMap<string, ToolResultBlock> | undefined,
): Message[] {
  if (originals === undefined || originals.size === 0) return messages;
  return messages.map((message) => {
    if (
      !message.content.some(
        (block) => block.type === "tool_result" && originals.has(block.toolUseId),
      )
    )
      return message;
    const content = message.content.map((block) =>
      block.type === "tool_result" ? (originals.get(block.toolUseId) ?? block) : block,
    );
    return { ...message, content } as Message;
  });
}
