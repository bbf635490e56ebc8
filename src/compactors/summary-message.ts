import type { Message, TextBlock, UserMessage } from "../core/message.js";
import { type Clock, createMessage } from "../core/message-factory.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import { tokensToChars } from "../core/tokens.js";
import { isSummaryTurn, SUMMARY_TURN_ID } from "../core/turn.js";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "./prompt.js";

/** The share of the window the user's words kept verbatim may take by default. */
const USER_WORDS_SHARE = 0.1;
/** Their budget when the window is not known. */
const USER_WORDS_TOKENS = 2000;

/** Tokens of the user's words kept verbatim: the option, else 10% of the window. */
export function userWordsBudget(
  option: number | undefined,
  contextLimit: number | undefined,
): number {
  if (option !== undefined) return option;
  return contextLimit === undefined
    ? USER_WORDS_TOKENS
    : Math.floor(contextLimit * USER_WORDS_SHARE);
}

/** The share of the summarizer's request budget that the user's requests may take. */
const USER_REQUESTS_SHARE = 1 / 4;

/**
 * The user's own words from the folded part, oldest first: those an earlier summary kept
 * verbatim, then the text of the user's messages (words beside tool results included).
 */
export function collectUserRequests(folded: readonly Message[]): string[] {
  const requests: string[] = [];
  for (const message of folded) {
    if (message.role !== "user") continue;
    const summary = isSummaryTurn(message.turnId);
    for (const block of message.content) {
      if (block.type !== "text") continue;
      if (!summary) {
        if (block.text.trim() !== "") requests.push(block.text);
      } else if (block.text.startsWith(EARLIER_USER_MESSAGE_PREFIX)) {
        requests.push(block.text.slice(EARLIER_USER_MESSAGE_PREFIX.length));
      }
    }
  }
  // The same words twice (a pinned message folded again, a request repeated) are kept once,
  // where they were said last.
  const seen = new Set<string>();
  const newestFirst: string[] = [];
  for (let index = requests.length - 1; index >= 0; index -= 1) {
    const text = requests[index]!;
    if (seen.has(text)) continue;
    seen.add(text);
    newestFirst.push(text);
  }
  return newestFirst.reverse();
}

/** The newest of `texts` whose characters together fit in `budgetTokens`, oldest first. */
export function newestWithin(texts: readonly string[], budgetTokens: number): string[] {
  let remaining = tokensToChars(budgetTokens);
  let first = texts.length;
  while (first > 0 && texts[first - 1]!.length <= remaining) {
    first -= 1;
    remaining -= texts[first]!.length;
  }
  return texts.slice(first);
}

/** The user's requests shown in the summarizer's prompt: the newest, within a quarter of its budget. */
export function requestsForPrompt(
  requests: readonly string[],
  requestBudgetTokens: number,
): string[] {
  return newestWithin(requests, Math.floor(requestBudgetTokens * USER_REQUESTS_SHARE));
}

/** Where the summary message comes from: its session, and the clock of its `createdAt`. */
export interface SummaryMessageOptions {
  sessionId: string;
  clock: Clock;
}

/**
 * The message that stands where the folded messages were (turn `u0`): the summary after
 * {@link SUMMARY_PREFIX}, then each user message kept verbatim after
 * {@link EARLIER_USER_MESSAGE_PREFIX}, in a block of its own.
 */
export function summaryMessage(
  summary: string,
  verbatim: readonly string[],
  options: SummaryMessageOptions,
  factsSection = "",
): UserMessage {
  const content: TextBlock[] = [{ type: "text", text: `${SUMMARY_PREFIX}${summary}` }];
  if (factsSection !== "") content.push({ type: "text", text: factsSection });
  for (const text of verbatim)
    content.push({ type: "text", text: `${EARLIER_USER_MESSAGE_PREFIX}${text}` });
  return createMessage({
    role: "user",
    sessionId: options.sessionId,
    turnId: SUMMARY_TURN_ID,
    content,
    clock: options.clock,
  });
}

const ESTIMATE_ONLY: SummaryMessageOptions = { sessionId: "", clock: () => new Date(0) };

/**
 * Estimated tokens of the summary message before its summary text: the framing, and the user
 * messages it keeps verbatim. What stands in the folded part's place even with an empty summary.
 */
export function summaryFramingTokens(verbatim: readonly string[]): number {
  return estimateMessageTokens(summaryMessage("", verbatim, ESTIMATE_ONLY));
}
