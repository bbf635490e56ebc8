import { readableMessages } from "../core/conversation-structure.js";
import type { Message, UserMessage } from "../core/message.js";
import { type Clock, createMessage, systemClock } from "../core/message-factory.js";
import { estimateMessageTokens, estimateTokens } from "../core/message-memo.js";
import { isTrimNoticeText, TRIM_NOTICE } from "../core/summary-format.js";
import { isSummaryTurn, SUMMARY_TURN_ID } from "../core/turn.js";
import {
  type CutLayout,
  cutLayout,
  firstFittingCut,
  innerSafeCuts,
  isKeptRequest,
  keptRequestEnd,
} from "./cut-plan.js";
import { collectFileLedger, ledgerBudget, renderFileLedger } from "./file-ledger.js";
import { collectOutlines, outlineBudget, pathsRead, renderOutlines } from "./file-outline.js";
import {
  earlierUserText,
  type UserWords,
  userWordsBudget,
  userWordsToKeep,
} from "./summary-message.js";

export { TRIM_NOTICE };

/** What {@link trimOldest} did. */
export interface TrimOutput {
  /** What is left: kept summaries, the notice, the latest request, then the newest messages. */
  conversation: Message[];
  /** The messages removed, in order: hand them to storage, they are not lost. */
  removed: Message[];
}

/** Options of {@link trimOldest}. */
export interface TrimOptions {
  /** Clock for the notice's `createdAt`. @default the wall clock */
  clock?: Clock;
  /**
   * Tokens of the user's words, from the removed messages and earlier notices, the notice keeps
   * verbatim (newest first within the budget, long pastes clipped), so a directive outlives any
   * number of trims. @default 0 (none)
   */
  userWordsTokens?: number;
  /**
   * Tokens of the file ledger the notice carries: the files read, edited and created (from tool
   * inputs), then the paths tool results mentioned. @default 0 (none)
   */
  ledgerTokens?: number;
  /**
   * Tokens of the outlines of the files read in the removed messages the notice carries (their
   * declaration lines as read, newest read first; files read again in what stays left out).
   * @default 0 (none)
   */
  outlineTokens?: number;
  /**
   * The latest index a cut may take: the messages from it on stay whatever the budget (the
   * newest tool exchanges a compaction keeps whole). @default no bound
   */
  latestCut?: number;
  /**
   * The messages as they were before the compaction this trim finishes changed some of them
   * (masked results): the notice's ledger and outlines read a removed message's original, by
   * id, where there is one. @default the messages as given
   */
  originals?: readonly Message[];
}

/**
 * The options of a trim whose notice keeps what a summary would, without a summarizer: the
 * user's words and the file ledger, within the budgets a summary has in this window.
 */
export function keepingTrimOptions(contextLimit: number | undefined, clock?: Clock): TrimOptions {
  return {
    ...(clock === undefined ? {} : { clock }),
    userWordsTokens: userWordsBudget(undefined, contextLimit),
    ledgerTokens: ledgerBudget(contextLimit),
    outlineTokens: outlineBudget(contextLimit),
  };
}

function isTrimNotice(message: Message): boolean {
  return (
    isSummaryTurn(message.turnId) &&
    message.content.some((block) => block.type === "text" && isTrimNoticeText(block.text))
  );
}

/**
 * The last resort when compaction cannot bring a conversation under its window: removes the
 * oldest messages, at a point that never separates a tool use from its result, until the
 * local estimate is at or below `budgetTokens` (or only the newest message is left). Summary
 * messages and the user's latest request ({@link latestRequestIndex}, with the system messages
 * right after it) are kept, and a notice
 * (turn `u0`) tells the model that earlier messages were removed. Pure; `undefined` when nothing
 * can be removed, or when what goes is no larger than the notice that would stand for it.
 */
export function trimOldest(
  messages: readonly Message[],
  budgetTokens: number,
  options: TrimOptions = {},
): TrimOutput | undefined {
  const conversation = readableMessages(messages);
  const sessionId = conversation[0]?.sessionId ?? "";
  const clock = options.clock ?? systemClock;
  const keeps =
    (options.userWordsTokens ?? 0) > 0 ||
    (options.ledgerTokens ?? 0) > 0 ||
    (options.outlineTokens ?? 0) > 0;
  const hasNotice = !keeps && conversation.some(isTrimNotice);
  const layout = cutLayout(conversation);
  const bound = options.latestCut ?? conversation.length;
  const cuts = innerSafeCuts(layout).filter((cut) => cut <= bound);
  const lastCut = cuts.at(-1);
  if (lastCut === undefined) return undefined;
  // A keeping notice replaces the earlier ones; what it takes is at most its size after the
  // deepest cut (it keeps more words and files the more goes, within its budgets).
  const reserve = hasNotice
    ? 0
    : keeps
      ? estimateMessageTokens(
          keepingNotice(goneAt(conversation, layout, lastCut, true), options, sessionId, clock),
        )
      : estimateMessageTokens(noticeFor(sessionId, clock));
  const chosen = trimCut(layout, cuts, budgetTokens, reserve, keeps);
  if (chosen === undefined) return undefined;

  const before = conversation.slice(0, chosen);
  // The latest request stays, with the system messages right after it.
  const latestRequest = layout.latestRequest;
  const requestEnd = keptRequestEnd(conversation, latestRequest, chosen);
  const keptRequest = conversation.slice(Math.max(latestRequest, 0), requestEnd);
  const removed = goneAt(conversation, layout, chosen, false);
  const kept = before.filter((message) => isSummaryTurn(message.turnId));
  const earlierNotices = keeps ? kept.filter(isTrimNotice) : [];
  // An earlier notice alone to fold (made under a larger window) is worth a new one.
  if (removed.length === 0 && earlierNotices.length === 0) return undefined;
  const stays = conversation.slice(chosen);
  const notice = keeps
    ? keepingNotice([...earlierNotices, ...removed], options, sessionId, clock, pathsRead(stays))
    : noticeFor(sessionId, clock);
  const trimmed = [
    ...kept.filter((message) => !earlierNotices.includes(message)),
    ...(hasNotice ? [] : [notice]),
    ...keptRequest,
    ...stays,
  ];
  // A notice larger than what goes would only grow the context.
  return estimateTokens(trimmed) < estimateTokens(conversation)
    ? { conversation: trimmed, removed }
    : undefined;
}

/**
 * What a cut at `cut` removes: the messages before it but the summaries and the latest request
 * (with the system messages after it); with `withNotices`, the earlier trim notices first (a
 * keeping notice folds them in).
 */
function goneAt(
  conversation: readonly Message[],
  layout: CutLayout,
  cut: number,
  withNotices: boolean,
): Message[] {
  const { latestRequest } = layout;
  const before = conversation.slice(0, cut);
  const removed = before.filter(
    (message, index) =>
      !isSummaryTurn(message.turnId) && !isKeptRequest(conversation, latestRequest, cut, index),
  );
  return withNotices ? [...before.filter(isTrimNotice), ...removed] : removed;
}

/**
 * The earliest of `cuts` after which what stays (kept summaries, the notice, the latest request
 * and the messages from the cut on) fits `budgetTokens`, else the latest of them. With a keeping
 * notice (`keeps`), the earlier notices go into it and do not count apart.
 */
function trimCut(
  layout: CutLayout,
  cuts: readonly number[],
  budgetTokens: number,
  noticeTokens: number,
  keeps: boolean,
): number | undefined {
  const { conversation, suffix, latestRequest } = layout;
  // summaryBefore[cut]: the summaries before `cut`, which stay.
  const summaryBefore = [0];
  conversation.forEach((message, index) => {
    const stays = isSummaryTurn(message.turnId) && !(keeps && isTrimNotice(message));
    summaryBefore.push(summaryBefore[index]! + (stays ? estimateMessageTokens(message) : 0));
  });
  const requestTokens =
    latestRequest === -1 ? 0 : estimateMessageTokens(conversation[latestRequest]!);
  return firstFittingCut(
    cuts,
    (cut) =>
      summaryBefore[cut]! +
        noticeTokens +
        (latestRequest !== -1 && latestRequest < cut ? requestTokens : 0) +
        suffix[cut]! <=
      budgetTokens,
  );
}

/** What a keeping notice carries besides its first line: the library's records, then the user's words. */
interface NoticeParts {
  words: readonly UserWords[];
  records: readonly string[];
}

function noticeFor(
  sessionId: string,
  clock: Clock,
  parts: NoticeParts = { words: [], records: [] },
): UserMessage {
  return createMessage({
    role: "user",
    sessionId,
    turnId: SUMMARY_TURN_ID,
    content: [
      { type: "text", text: TRIM_NOTICE },
      ...parts.records
        .filter((record) => record !== "")
        .map((record) => ({ type: "text" as const, text: record })),
      ...parts.words.map((each) => ({ type: "text" as const, text: earlierUserText(each) })),
    ],
    clock,
    generated: "notice",
  });
}

/** Each of `messages` as it was in `originals` (by id), where it is there. */
function asOriginals(
  messages: readonly Message[],
  originals: readonly Message[] | undefined,
): readonly Message[] {
  if (originals === undefined) return messages;
  const byId = new Map(originals.map((message) => [message.id, message]));
  return messages.map((message) => byId.get(message.id) ?? message);
}

/**
 * The notice of a trim that keeps what a summary would, without a summarizer: the file ledger,
 * the outlines of the files read (but those read again in what stays, `visible`), the user's
 * directives and the user's words of what goes (earlier notices included), within their budgets.
 */
function keepingNotice(
  gone: readonly Message[],
  options: TrimOptions,
  sessionId: string,
  clock: Clock,
  visible: ReadonlySet<string> = new Set(),
): UserMessage {
  const { verbatim, directives } = userWordsToKeep(gone, options.userWordsTokens ?? 0);
  const read = asOriginals(gone, options.originals);
  const ledger = renderFileLedger(collectFileLedger(read), options.ledgerTokens ?? 0);
  const outlineTokens = options.outlineTokens ?? 0;
  const outlines =
    outlineTokens > 0 ? renderOutlines(collectOutlines(read), outlineTokens, visible) : "";
  return noticeFor(sessionId, clock, { words: verbatim, records: [ledger, outlines, directives] });
}
