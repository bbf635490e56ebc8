import {
  isSystemMessage,
  latestRequestIndex,
  readableMessages,
  safeCuts,
  suffixTokenSums,
} from "../core/conversation-structure.js";
import type { Message, UserMessage } from "../core/message.js";
import { type Clock, createMessage, systemClock } from "../core/message-factory.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import { isSummaryTurn, SUMMARY_TURN_ID } from "../core/turn.js";
import { collectFileLedger, renderFileLedger } from "./file-ledger.js";
import { earlierUserText, type UserWords, userWordsToKeep } from "./summary-message.js";

/** The user message that stands where trimmed messages were. */
export const TRIM_NOTICE = "[Earlier messages were removed to fit the context window]";

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
  /** Tokens of the file ledger (files read, edited, created, from tool inputs) the notice carries. @default 0 (none) */
  ledgerTokens?: number;
}

function isTrimNotice(message: Message): boolean {
  return (
    isSummaryTurn(message.turnId) &&
    message.content.some((block) => block.type === "text" && block.text === TRIM_NOTICE)
  );
}

/**
 * The last resort when compaction cannot bring a conversation under its window: removes the
 * oldest messages, at a point that never separates a tool use from its result, until the
 * local estimate is at or below `budgetTokens` (or only the newest message is left). Summary
 * messages and the user's latest request ({@link latestRequestIndex}, with the system messages
 * right after it) are kept, and a notice
 * (turn `u0`) tells the model that earlier messages were removed. Pure; `undefined` when nothing can be removed.
 */
export function trimOldest(
  messages: readonly Message[],
  budgetTokens: number,
  options: TrimOptions = {},
): TrimOutput | undefined {
  const conversation = readableMessages(messages);
  const count = conversation.length;
  const safe = safeCuts(conversation);
  const suffix = suffixTokenSums(conversation);
  const latestRequest = latestRequestIndex(conversation);
  const sessionId = conversation[0]?.sessionId ?? "";
  const clock = options.clock ?? systemClock;
  const keeps = (options.userWordsTokens ?? 0) > 0 || (options.ledgerTokens ?? 0) > 0;
  // A notice that keeps words is rebuilt at each trim, so reserve its whole budget.
  const noticeTokens =
    estimateMessageTokens(noticeFor(sessionId, clock)) +
    (keeps ? (options.userWordsTokens ?? 0) + (options.ledgerTokens ?? 0) : 0);
  const hasNotice = !keeps && conversation.some(isTrimNotice);

  let summaryTokens = 0;
  let chosen = -1;
  for (let cut = 1; cut < count; cut += 1) {
    const previous = conversation[cut - 1]!;
    if (isSummaryTurn(previous.turnId)) summaryTokens += estimateMessageTokens(previous);
    if (!safe[cut]) continue;
    chosen = cut;
    const request =
      latestRequest !== -1 && latestRequest < cut
        ? estimateMessageTokens(conversation[latestRequest]!)
        : 0;
    const total = summaryTokens + (hasNotice ? 0 : noticeTokens) + request + suffix[cut]!;
    if (total <= budgetTokens) break;
  }
  if (chosen === -1) return undefined;

  const before = conversation.slice(0, chosen);
  // The latest request stays, with the system messages right after it.
  let requestEnd = latestRequest + 1;
  while (requestEnd < chosen && isSystemMessage(conversation[requestEnd])) requestEnd += 1;
  const keptRequest =
    latestRequest !== -1 && latestRequest < chosen
      ? conversation.slice(latestRequest, requestEnd)
      : [];
  const removed = before.filter(
    (message, index) =>
      !isSummaryTurn(message.turnId) && !(index >= latestRequest && index < requestEnd),
  );
  if (removed.length === 0) return undefined;
  const kept = before.filter((message) => isSummaryTurn(message.turnId));
  const earlierNotices = keeps ? kept.filter(isTrimNotice) : [];
  const notice = keeps
    ? keepingNotice([...earlierNotices, ...removed], options, sessionId, clock)
    : noticeFor(sessionId, clock);
  return {
    conversation: [
      ...kept.filter((message) => !earlierNotices.includes(message)),
      ...(hasNotice ? [] : [notice]),
      ...keptRequest,
      ...conversation.slice(chosen),
    ],
    removed,
  };
}

function noticeFor(
  sessionId: string,
  clock: Clock,
  words: readonly UserWords[] = [],
  ledger = "",
): UserMessage {
  return createMessage({
    role: "user",
    sessionId,
    turnId: SUMMARY_TURN_ID,
    content: [
      { type: "text", text: TRIM_NOTICE },
      ...(ledger === "" ? [] : [{ type: "text" as const, text: ledger }]),
      ...words.map((each) => ({ type: "text" as const, text: earlierUserText(each) })),
    ],
    clock,
    generated: "notice",
  });
}

/**
 * The notice of a trim that keeps what a summary would, without a summarizer: the file ledger
 * and the user's words of what goes (earlier notices included), within their budgets.
 */
function keepingNotice(
  gone: readonly Message[],
  options: TrimOptions,
  sessionId: string,
  clock: Clock,
): UserMessage {
  const words = userWordsToKeep(gone, options.userWordsTokens ?? 0).verbatim;
  const ledger = renderFileLedger(collectFileLedger(gone), options.ledgerTokens ?? 0);
  return noticeFor(sessionId, clock, words, ledger);
}
