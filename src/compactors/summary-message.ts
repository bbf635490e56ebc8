import type { Message, TextBlock, UserMessage } from "../core/message.js";
import { type Clock, createMessage } from "../core/message-factory.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import { withoutLibraryBlocks } from "../core/summary-format.js";
import { charsToTokens, tokensToChars } from "../core/tokens.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { headEnd, tailStart } from "../internal/whole-characters.js";
import { windowShareBudget } from "../internal/window-share.js";
import { sourceLabel } from "./file-ledger.js";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "./prompt.js";
import { collectDirectives, renderDirectives } from "./user-directives.js";
import { keptWhereSaidLast, userTextBlocks } from "./user-text.js";

/** The share of the window the user's words kept verbatim may take by default. */
const USER_WORDS_SHARE = 0.1;
/** Their budget when the window is not known. */
const USER_WORDS_TOKENS = 2000;

/** Tokens of the user's words kept verbatim: the option, else 10% of the window. */
export function userWordsBudget(
  option: number | undefined,
  contextLimit: number | undefined,
): number {
  return windowShareBudget(option, contextLimit, {
    share: USER_WORDS_SHARE,
    unknownWindow: USER_WORDS_TOKENS,
  });
}

/** The share of the summarizer's request budget that the user's requests may take. */
const USER_REQUESTS_SHARE = 1 / 4;

/** Words of the user kept verbatim, and the id of the user message they came from. */
export interface UserWords {
  text: string;
  /** The user message's id; unknown for words an older summary kept without one. */
  source?: string;
}

/**
 * The text of a summary message's verbatim block. The words' source is not written there: the
 * block is the library's copy of the user's words, and every token spent on it is the user's.
 */
export function earlierUserText(words: string | UserWords): string {
  return `${EARLIER_USER_MESSAGE_PREFIX}${typeof words === "string" ? words : words.text}`;
}

/** The user's words a summary message's block keeps verbatim, or undefined for another block. */
export function earlierUserWords(text: string): UserWords | undefined {
  if (!text.startsWith(EARLIER_USER_MESSAGE_PREFIX)) return undefined;
  return { text: text.slice(EARLIER_USER_MESSAGE_PREFIX.length) };
}

/**
 * The user's own words from the folded part, oldest first, with the message each came from:
 * those an earlier summary kept verbatim, then the text of the user's messages (words beside
 * tool results included). Words said more than once are kept once, where said last.
 */
export function collectUserWords(folded: readonly Message[]): UserWords[] {
  const words: UserWords[] = [];
  for (const { text, library, message } of userTextBlocks(folded)) {
    if (!library) {
      if (text.trim() !== "") words.push({ text, source: message.id });
      continue;
    }
    const kept = earlierUserWords(text);
    if (kept !== undefined) words.push(kept);
  }
  // The same words twice (a pinned message folded again, a request repeated) are kept once,
  // where they were said last.
  return keptWhereSaidLast(words, (each) => each.text);
}

/**
 * The user's own words from the folded part, oldest first: those an earlier summary kept
 * verbatim, then the text of the user's messages (words beside tool results included).
 */
export function collectUserRequests(folded: readonly Message[]): string[] {
  return collectUserWords(folded).map((words) => words.text);
}

/** Share of a clipped text kept from its head; the rest is its tail. */
const CLIP_HEAD_SHARE = 0.6;
/** The fewest tokens one user message keeps before it is clipped. */
const MIN_CLIP_TOKENS = 256;

/** Tokens one user message may keep verbatim: an eighth of the user's words budget, at least 256. */
export function userMessageClipTokens(userWordsTokens: number): number {
  return Math.max(MIN_CLIP_TOKENS, Math.floor(userWordsTokens / 8));
}

/**
 * `words` cut to their head and tail when longer than `maxTokens` (256 at least), so one long paste (a log,
 * a file) cannot push the user's other directives out of the budget. The marker names the
 * message and claims nothing of where its whole text went: with an archive, the summary's own
 * note names the handle the messages it stands for are archived under; without one (or when it
 * failed) the text is gone.
 */
export function clipUserWords(words: UserWords, maxTokens: number): UserWords {
  const maxChars = tokensToChars(Math.max(MIN_CLIP_TOKENS, maxTokens));
  if (words.text.length <= maxChars) return words;
  const where = words.source === undefined ? "" : ` of user message ${sourceLabel(words.source)}`;
  const marker = (cut: number) => `\n[… ${cut} characters${where} cut here …]\n`;
  // The marker counts in the budget, so a clipped text fits it and is never clipped again.
  const room = Math.max(0, maxChars - marker(words.text.length).length);
  const { length } = words.text;
  const share = Math.floor(room * CLIP_HEAD_SHARE);
  // Never half a surrogate pair (a lone one makes the request refused).
  const head = headEnd(words.text, share);
  const tail = tailStart(words.text, length - (room - share));
  const text = `${words.text.slice(0, head)}${marker(tail - head)}${words.text.slice(tail)}`;
  return { ...words, text };
}

/** The newest of `texts` whose characters together fit in `budgetTokens`, oldest first. */
export function newestWithin<T extends string | UserWords>(
  texts: readonly T[],
  budgetTokens: number,
): T[] {
  const length = (each: T) => (typeof each === "string" ? each.length : each.text.length);
  let remaining = tokensToChars(budgetTokens);
  let first = texts.length;
  while (first > 0 && length(texts[first - 1]!) <= remaining) {
    first -= 1;
    remaining -= length(texts[first]!);
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
 * {@link SUMMARY_PREFIX}, the library's own `records` (the facts section, the file ledger, the
 * file outlines), each in a block of its own, then each user message kept verbatim after
 * {@link EARLIER_USER_MESSAGE_PREFIX}, in a block of its own.
 */
export function summaryMessage(
  summary: string,
  verbatim: readonly (string | UserWords)[],
  options: SummaryMessageOptions,
  records: readonly string[] = [],
): UserMessage {
  const written = withoutLibraryBlocks(summary);
  const content: TextBlock[] = [{ type: "text", text: `${SUMMARY_PREFIX}${written}` }];
  for (const record of records) if (record !== "") content.push({ type: "text", text: record });
  for (const words of verbatim) content.push({ type: "text", text: earlierUserText(words) });
  return createMessage({
    role: "user",
    sessionId: options.sessionId,
    turnId: SUMMARY_TURN_ID,
    content,
    clock: options.clock,
    generated: "summary",
  });
}

const ESTIMATE_ONLY: SummaryMessageOptions = { sessionId: "", clock: () => new Date(0) };

/**
 * Estimated tokens of the summary message before its summary text: the framing, and the user
 * messages it keeps verbatim. What stands in the folded part's place even with an empty summary.
 */
export function summaryFramingTokens(verbatim: readonly (string | UserWords)[]): number {
  return estimateMessageTokens(summaryMessage("", verbatim, ESTIMATE_ONLY));
}

/** The share of the user's words budget their directives may take, apart from their messages. */
const DIRECTIVES_SHARE = 0.5;

/**
 * The user's words of a folded part, oldest first, each clipped to its share of the budget
 * ({@link userMessageClipTokens}); the newest of them that fit `budgetTokens` together beside
 * the directives block; and that block: the user's directives (every earlier one included) not
 * already in a message kept whole, within half the budget ({@link renderDirectives}).
 */
export function userWordsToKeep(
  folded: readonly Message[],
  budgetTokens: number,
): { all: UserWords[]; verbatim: UserWords[]; directives: string } {
  const clipTokens = userMessageClipTokens(budgetTokens);
  const all = collectUserWords(folded).map((words) => clipUserWords(words, clipTokens));
  const found = collectDirectives(folded);
  const directivesBudget = Math.floor(budgetTokens * DIRECTIVES_SHARE);
  const reserved = charsToTokens(renderDirectives(found, directivesBudget).length);
  const verbatim = newestWithin(all, budgetTokens - reserved);
  const keptWhole = verbatim.map((words) => words.text);
  return { all, verbatim, directives: renderDirectives(found, directivesBudget, keptWhole) };
}
