import { requestWithin, throwIfAborted } from "../core/abort.js";
import {
  type CompactAsyncOptions,
  type CompactionOutput,
  emptyCompactionResult,
} from "../core/compactor.js";
import { isContextOverflowError } from "../core/context-overflow.js";
import { CompactionError } from "../core/errors.js";
import { type LlmClient, type LlmRequest, readLlmUsage } from "../core/llm-client.js";
import type { Message, ToolResultBlock } from "../core/message.js";
import { systemClock } from "../core/message-factory.js";
import { estimateMessageTokens, estimateTokens } from "../core/message-memo.js";
import { charsToTokens } from "../core/tokens.js";
import { isSummaryTurn, turnKey } from "../core/turn.js";
import { addUsage, type CompactionUsage } from "../core/usage.js";
import { conversationSummaryRequest } from "./conversation-summary.js";
import { checkSummaryFacts, factsSectionBudget } from "./facts-check.js";
import { collectFileLedger, ledgerBudget, renderFileLedger } from "./file-ledger.js";
import { collectOutlines, outlineBudget, pathsRead, renderOutlines } from "./file-outline.js";
import { type FoldPlan, foldedMessages, keptVerbatim, planFold } from "./fold-plan.js";
import type { LLMCompactorOptions } from "./llm-compactor.js";
import { DEFAULT_SUMMARY_PROMPT } from "./prompt.js";
import { summarizeTranscript } from "./summary-chunking.js";
import {
  requestsForPrompt,
  summaryFramingTokens,
  summaryMessage,
  type UserWords,
  userWordsBudget,
  userWordsToKeep,
} from "./summary-message.js";
import { minimumGain } from "./target.js";

/** What writes a summary: the client, and the compactor options (defaults filled in) it runs with. */
export interface Summarizer {
  readonly client: LlmClient;
  readonly options: Readonly<LLMCompactorOptions>;
}

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

/** What {@link writeSummary} writes from. */
interface SummarySource {
  conversation: readonly Message[];
  /** What the agent sent (`conversation` itself, or the hybrid's unmasked originals). */
  source: readonly Message[];
  plan: FoldPlan;
  /** The folded messages as the summarizer reads them (originals restored). */
  foldedSource: Message[];
  summaries: ReadonlyMap<string, string>;
  userRequests: string[];
  options: CompactAsyncOptions;
}

/**
 * The summary and what its requests cost: one request with the conversation as the agent sent
 * it when the client takes it and it fits, else the transcript (in parts when it must be).
 */
async function writeSummary(
  summarizer: Summarizer,
  input: SummarySource,
): Promise<{ summary: string; usage: CompactionUsage | undefined }> {
  const { options } = input;
  const settings = summarizer.options;
  let usage: CompactionUsage | undefined;
  const send = async (
    request: Omit<LlmRequest, "signal" | "maxTokens" | "runId">,
    requestSignal?: AbortSignal,
  ) => {
    const run = options.runId === undefined ? {} : { runId: options.runId };
    const reply = await requestSummary(summarizer, { ...request, ...run }, requestSignal);
    if (reply.usage !== undefined) usage = addUsage(usage, reply.usage);
    return reply.text;
  };
  const system = settings.summarySystemPrompt ?? DEFAULT_SUMMARY_PROMPT;
  const cached = cachedRequest(summarizer, input, system);
  const transcript = () =>
    summarizeTranscript(
      {
        messages: input.foldedSource,
        summaries: input.summaries,
        userRequests: requestsForPrompt(input.userRequests, settings.maxTranscriptTokens),
        instructions: options.instructions,
        system,
        requestBudgetTokens: settings.maxTranscriptTokens,
        maxToolInputChars: settings.maxToolInputChars,
        maxToolResultChars: settings.maxToolResultChars,
        overflow: settings.summaryOverflow,
      },
      (prompt, requestSignal) => send({ prompt, system }, requestSignal),
      options.signal,
    );
  // The conversation was measured by the session's estimate; when the provider counts it over
  // the window (the refusal an overflow recovery compacts after), the transcript fits.
  const summary =
    cached === undefined
      ? await transcript()
      : await send(
          { prompt: cached.instruction, conversation: cached.messages },
          options.signal,
        ).catch((error: unknown) => {
          if (error instanceof CompactionError && isContextOverflowError(error.cause)) {
            return transcript();
          }
          throw error;
        });
  return { summary, usage };
}

/**
 * The request that reads the conversation as the agent sent it (from the prompt cache), when
 * the client takes a conversation and it fits; `undefined` for a transcript instead.
 */
function cachedRequest(summarizer: Summarizer, input: SummarySource, system: string) {
  if (
    summarizer.client.acceptsConversation !== true ||
    input.source.length !== input.conversation.length
  )
    return undefined;
  const { options } = input;
  return conversationSummaryRequest({
    conversation: input.source,
    plan: input.plan,
    system,
    instructions: options.instructions,
    maxSummaryTokens: summarizer.options.maxSummaryTokens,
    contextLimit: options.contextLimit,
    contextUsed: options.contextUsed,
    requestBudgetTokens: summarizer.options.maxTranscriptTokens,
  });
}

/**
 * One summarizer request under the deadline, linked to the caller's signal: its text, and its
 * usage when the client reported one. Rejects with `CompactionError`: `aborted` (checked before
 * the request is sent too), `timeout` (the request is then aborted), `llm_error` (the client
 * threw, replied with neither a string nor `{ text }`, or reported a usage whose counts are not
 * whole numbers ≥ 0: the `ValidationError` is the cause), or `empty_summary`.
 */
async function requestSummary(
  { client, options }: Summarizer,
  request: Omit<LlmRequest, "signal" | "maxTokens">,
  signal: AbortSignal | undefined,
): Promise<{ text: string; usage?: CompactionUsage }> {
  const reply: unknown = await requestWithin(
    (requestSignal) =>
      client.complete({ ...request, maxTokens: options.maxSummaryTokens, signal: requestSignal }),
    {
      signal,
      milliseconds: options.summaryTimeoutMs,
      timers: options.timers,
      what: "summary",
      failure: (error) =>
        new CompactionError("llm_error", `summarizer failed: ${describe(error)}`, {
          cause: error,
        }),
    },
  );
  const { text, usage } = readReply(reply);
  if (text.trim() === "") {
    throw new CompactionError("empty_summary", "summarizer returned an empty summary");
  }
  return { text: text.trim(), ...(usage === undefined ? {} : { usage }) };
}

/** The text and checked usage of a client's reply; rejects anything else with `llm_error`. */
function readReply(reply: unknown): { text: string; usage?: CompactionUsage } {
  if (typeof reply === "string") return { text: reply };
  if (
    typeof reply !== "object" ||
    reply === null ||
    typeof (reply as { text?: unknown }).text !== "string"
  ) {
    throw new CompactionError(
      "llm_error",
      `summarizer returned ${reply === null ? "null" : typeof reply}, not a string or { text }`,
    );
  }
  const { text, usage } = reply as { text: string; usage?: unknown };
  if (usage === undefined) return { text };
  try {
    return { text, usage: readLlmUsage(usage, "summarizer usage") };
  } catch (error) {
    throw new CompactionError("llm_error", `summarizer reported ${describe(error)}`, {
      cause: error,
    });
  }
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
