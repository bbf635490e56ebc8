import { requestWithin } from "../core/abort.js";
import type { CompactAsyncOptions } from "../core/compactor.js";
import { isContextOverflowError } from "../core/context-overflow.js";
import { CompactionError } from "../core/errors.js";
import { type LlmClient, type LlmRequest, readLlmUsage } from "../core/llm-client.js";
import type { Message } from "../core/message.js";
import { charsToTokens } from "../core/tokens.js";
import { addUsage, type CompactionUsage } from "../core/usage.js";
import { conversationSummaryRequest } from "./conversation-summary.js";
import type { FoldPlan } from "./fold-plan.js";
import type { LLMCompactorOptions } from "./llm-compactor.js";
import { DEFAULT_SUMMARY_PROMPT } from "./prompt.js";
import { summarizeTranscript } from "./summary-chunking.js";
import { requestsForPrompt } from "./summary-message.js";
import { inEstimateTokens } from "./target.js";

/** What writes a summary: the client, and the compactor options (defaults filled in) it runs with. */
export interface Summarizer {
  readonly client: LlmClient;
  readonly options: Readonly<LLMCompactorOptions>;
}

/** What {@link writeSummary} writes from. */
export interface SummarySource {
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
 * The budget of one summary request by the local estimate: `maxTranscriptTokens` (the
 * provider's tokens, see `tokenRatio`), and no more than the window the session knows leaves
 * beside the summary: a summarizer on the agent's model takes no more than the agent (a
 * 6,000-token window refused a 25k-character transcript). A window that leaves less than the
 * summary itself is not the summarizer's (no request there could hold a transcript worth
 * summarizing): the budget stands.
 */
function transcriptBudget(settings: LLMCompactorOptions, options: CompactAsyncOptions): number {
  const budget = inEstimateTokens(settings.maxTranscriptTokens, options);
  const window = options.contextLimit;
  if (window === undefined) return budget;
  const summary = inEstimateTokens(settings.maxSummaryTokens, options);
  const room = Math.floor(window) - summary;
  return room < summary ? budget : Math.min(budget, room);
}

/**
 * The summary and what its requests cost: one request with the conversation as the agent sent
 * it when the client takes it and it fits, else the transcript (in parts when it must be).
 */
export async function writeSummary(
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
  const transcriptTokens = transcriptBudget(settings, options);
  const transcript = () =>
    summarizeTranscript(
      {
        messages: input.foldedSource,
        summaries: input.summaries,
        userRequests: requestsForPrompt(input.userRequests, transcriptTokens),
        instructions: options.instructions,
        system,
        requestBudgetTokens: transcriptTokens,
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
    // The reply's tokens are the provider's: in the estimate's, as the window here is.
    maxSummaryTokens: inEstimateTokens(summarizer.options.maxSummaryTokens, options),
    contextLimit: options.contextLimit,
    contextUsed: options.contextUsed,
    requestBudgetTokens: transcriptBudget(summarizer.options, options),
  });
}

/**
 * One summarizer request under the deadline, linked to the caller's signal: its text, and its
 * usage when the client reported one. Rejects with `CompactionError`: `aborted` (checked before
 * the request is sent too), `timeout` (the request is then aborted), `llm_error` (the client
 * threw, replied with neither a string nor `{ text }`, or reported a usage whose counts are not
 * whole numbers ≥ 0: the `ValidationError` is the cause), `empty_summary`, or
 * `summary_too_long` (see {@link SUMMARY_OVERRUN}).
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
  const summary = text.trim();
  if (summary === "") {
    throw new CompactionError("empty_summary", "summarizer returned an empty summary");
  }
  const tokens = charsToTokens(summary.length);
  if (tokens > SUMMARY_OVERRUN * options.maxSummaryTokens) {
    throw new CompactionError(
      "summary_too_long",
      `summarizer returned about ${tokens} tokens, over ${SUMMARY_OVERRUN}x maxSummaryTokens (${options.maxSummaryTokens}): its client must pass maxTokens on to the model`,
    );
  }
  return { text: summary, ...(usage === undefined ? {} : { usage }) };
}

/**
 * How many times `maxSummaryTokens` a summary may take by the local estimate (4 characters a
 * token: a tokenizer counts otherwise) before it is refused with `summary_too_long`. A longer
 * one came from a client that did not pass `maxTokens` on: kept, it would hold most of the
 * window and every step would pay for another summary; cut, it would be half a summary standing
 * for the whole part (a built-in client refuses a reply cut at its token limit as `llm_error`).
 */
const SUMMARY_OVERRUN = 2;

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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
