import pTimeout, { TimeoutError } from "p-timeout";
import { z } from "zod";
import {
  type AsyncCompactor,
  type CompactAsyncOptions,
  type CompactionContext,
  type CompactionOutput,
  emptyCompactionResult,
  exceedsThreshold,
} from "../core/compactor.js";
import { CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import type { Message, TextBlock, UserMessage } from "../core/message.js";
import { type Clock, createMessage, systemClock } from "../core/message-factory.js";
import { estimateMessageTokens, estimateTokens } from "../core/tokens.js";
import { isSummaryTurn, SUMMARY_TURN_ID, turnKey } from "../core/turn.js";
import { assertCompactArguments, assertMessages } from "../core/validate-conversation.js";
import {
  KEEP_RECENT_TURNS_SCHEMA,
  NON_NEGATIVE_INT_SCHEMA,
  POSITIVE_INT_SCHEMA,
  THRESHOLD_SCHEMA,
  targetIssues,
} from "./config-schemas.js";
import { DEFAULT_SUMMARY_PROMPT, EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "./prompt.js";
import { safeCutIndex } from "./retention.js";
import { type SummaryOverflow, summariseTranscript } from "./summary-chunking.js";
import { minimumGain, targetBudget } from "./target.js";

export type { SummaryOverflow } from "./summary-chunking.js";

/** Timer functions, injectable so tests can control the summary deadline. */
export interface Timers {
  setTimeout: typeof globalThis.setTimeout;
  clearTimeout: typeof globalThis.clearTimeout;
}

/** Configuration of {@link LLMCompactor}. */
export interface LLMCompactorConfig {
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold: number;
  /** Turns at the end kept verbatim; a whole number ≥ 1. @default 3 */
  keepRecentTurns: number;
  /** The summariser's system prompt. @default DEFAULT_SUMMARY_PROMPT */
  summarySystemPrompt?: string;
  /** The most tokens the summary may take. @default 2048 */
  maxSummaryTokens: number;
  /** Milliseconds before the summary call is abandoned (`timeout`). @default 60000 */
  summaryTimeoutMs: number;
  /**
   * Token budget (chars / 4) of one summarisation request: system prompt, user prompt and
   * transcript. A longer compacted part is summarised in parts that each fit, then combined
   * (see `summaryOverflow`), so no request exceeds the summariser's window. @default 50000
   */
  maxTranscriptTokens: number;
  /**
   * When the compacted part does not fit one request: `chunk` summarises it in parts and
   * combines their summaries (map-reduce, more requests, nothing dropped); `truncate` tightens
   * per-item caps and then drops the oldest items so one request fits. @default "chunk"
   */
  summaryOverflow: SummaryOverflow;
  /**
   * Hysteresis: when folding the turns older than `keepRecentTurns` would leave the context
   * above this utilisation (counting a summary of `maxSummaryTokens`), newer messages are
   * folded too, oldest first at safe points, until it fits; the latest user message and its
   * pending tool exchange are always kept verbatim. In (0, threshold]; needs the context the
   * session passes. @default undefined (fold only the turns older than keepRecentTurns)
   */
  targetUtilization?: number;
  /**
   * Minimum gain in estimated tokens (folded part minus a summary of `maxSummaryTokens`): a
   * summary that would free fewer is not requested, and the conversation is returned
   * unchanged. Ignored by manual (`forceCompact`) compactions. @default 0
   */
  clearAtLeast: number;
  /** Characters of one tool input shown to the summariser. @default 2000 */
  maxToolInputChars: number;
  /** Characters of one tool result shown to the summariser. @default 4000 */
  maxToolResultChars: number;
  /** Tokens of the newest compacted user messages kept verbatim beside the summary; 0 keeps none. @default 2000 */
  keepUserMessagesTokens: number;
  /** Timers for the deadline. @default the global timers */
  timers?: Timers;
  /** Clock for the summary message's `createdAt`. @default the wall clock */
  clock?: Clock;
}

/** The defaults of {@link LLMCompactorConfig}. */
export const DEFAULT_LLM_COMPACTOR_CONFIG: Readonly<LLMCompactorConfig> = Object.freeze({
  threshold: 0.75,
  keepRecentTurns: 3,
  maxSummaryTokens: 2048,
  summaryTimeoutMs: 60_000,
  maxTranscriptTokens: 50_000,
  summaryOverflow: "chunk",
  clearAtLeast: 0,
  maxToolInputChars: 2000,
  maxToolResultChars: 4000,
  keepUserMessagesTokens: 2000,
});

const nonNegativeInt = NON_NEGATIVE_INT_SCHEMA;

/** Schema of a partial {@link LLMCompactorConfig}. */
export const LLMCompactorConfigSchema = z.strictObject({
  threshold: THRESHOLD_SCHEMA.exactOptional(),
  keepRecentTurns: KEEP_RECENT_TURNS_SCHEMA.exactOptional(),
  summarySystemPrompt: z.string().min(1, "must be a non-empty string").exactOptional(),
  maxSummaryTokens: POSITIVE_INT_SCHEMA.exactOptional(),
  summaryTimeoutMs: POSITIVE_INT_SCHEMA.exactOptional(),
  maxTranscriptTokens: POSITIVE_INT_SCHEMA.exactOptional(),
  summaryOverflow: z
    .enum(["chunk", "truncate"], { error: 'must be "chunk" or "truncate"' })
    .exactOptional(),
  targetUtilization: THRESHOLD_SCHEMA.exactOptional(),
  clearAtLeast: nonNegativeInt.exactOptional(),
  maxToolInputChars: nonNegativeInt.exactOptional(),
  maxToolResultChars: nonNegativeInt.exactOptional(),
  keepUserMessagesTokens: nonNegativeInt.exactOptional(),
  timers: z
    .custom<Timers>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        typeof (value as Timers).setTimeout === "function" &&
        typeof (value as Timers).clearTimeout === "function",
      "must have setTimeout and clearTimeout functions",
    )
    .exactOptional(),
  clock: z
    .custom<Clock>((value) => typeof value === "function", "must be a function")
    .exactOptional(),
});

/** The options of one summarisation: per-call instructions, cancellation, and the context. */
export type SummariseOptions = CompactAsyncOptions & CompactionContext;

/**
 * The asynchronous compactor: asks an LLM to summarise the turns older than
 * `keepRecentTurns`, and replaces them with one user message holding the summary.
 *
 * @example
 * const compactor = new LLMCompactor(new AnthropicLlmClient({ model: "claude-haiku-4-5" }));
 * const { conversation } = await compactor.compactAsync(messages, new Map());
 */
export class LLMCompactor implements AsyncCompactor {
  /** The validated configuration, defaults filled in. */
  readonly config: Readonly<LLMCompactorConfig>;
  readonly isAsync = true;
  /** The strategy name reported in compaction boundaries. */
  readonly strategy: string = "llm";
  readonly #client: LlmClient;

  /** @throws {ValidationError} when a config field is out of range. */
  constructor(client: LlmClient, config: Partial<LLMCompactorConfig> = {}) {
    if (typeof client?.complete !== "function") {
      throw new ValidationError("LLMCompactor arguments", [
        { path: ["client"], message: "must be an LlmClient with a complete() method" },
      ]);
    }
    const parsed = parseOrThrow(LLMCompactorConfigSchema, config, "LLMCompactorConfig");
    const merged = { ...DEFAULT_LLM_COMPACTOR_CONFIG, ...parsed } as LLMCompactorConfig;
    const issues = targetIssues(merged);
    if (issues.length > 0) throw new ValidationError("LLMCompactorConfig", issues);
    this.#client = client;
    this.config = Object.freeze(merged);
  }

  shouldCompact(contextUsed: number, contextLimit: number): boolean {
    return exceedsThreshold(contextUsed, contextLimit, this.config.threshold);
  }

  /** Summaries need the LLM: the synchronous path changes nothing (use `compactAsync`). */
  compact(conversation: readonly Message[]): CompactionOutput {
    assertMessages(conversation, "conversation");
    return { conversation: [...conversation], result: emptyCompactionResult() };
  }

  compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: SummariseOptions = {},
  ): Promise<CompactionOutput> {
    return this.summariseInto(conversation, conversation, summaries, options);
  }

  /**
   * Folds a prefix of `conversation` into a summary written from the same messages of
   * `source` (same length and order; the hybrid passes the unmasked originals so the
   * summariser sees what masking hid). Unchanged (no request) when nothing is to be folded.
   *
   * @internal used by `HybridCompactor`.
   */
  async summariseInto(
    conversation: readonly Message[],
    source: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: SummariseOptions = {},
  ): Promise<CompactionOutput> {
    assertCompactArguments(conversation, summaries, options);
    const { signal } = options;
    if (signal?.aborted) throw abortedError(signal);
    const unchanged = (): CompactionOutput => ({
      conversation: [...conversation],
      result: emptyCompactionResult(),
    });

    const plan = planFold(conversation, this.config, options);
    if (plan === undefined) return unchanged();
    const folded = (from: readonly Message[]) =>
      from.slice(0, plan.cut).filter((_, index) => index !== plan.keepIndex);
    const foldedSource = folded(source.length === conversation.length ? source : conversation);
    const compactedTurns = new Set(
      folded(conversation)
        .filter((message) => !isSummaryTurn(message.turnId))
        .map((message) => turnKey(message.turnId)),
    );
    if (compactedTurns.size === 0) return unchanged();

    const userRequests = collectUserRequests(foldedSource);
    const keptRequests = keptUserMessages(userRequests, this.config.keepUserMessagesTokens);
    const gain = minimumGain(this.config.clearAtLeast, options);
    if (gain > 0) {
      const reserve = this.config.maxSummaryTokens + textTokens(keptRequests);
      if (estimateTokens(folded(conversation)) - reserve < gain) return unchanged();
    }

    const summary = await summariseTranscript(
      {
        messages: foldedSource,
        summaries,
        userRequests: fitUserRequests(userRequests, this.config.maxTranscriptTokens),
        instructions: options.instructions,
        system: this.config.summarySystemPrompt ?? DEFAULT_SUMMARY_PROMPT,
        requestBudgetTokens: this.config.maxTranscriptTokens,
        maxToolInputChars: this.config.maxToolInputChars,
        maxToolResultChars: this.config.maxToolResultChars,
        overflow: this.config.summaryOverflow,
      },
      (prompt, requestSignal) => this.#summarise(prompt, requestSignal),
      signal,
    );

    const sessionId = conversation[0]?.sessionId ?? "";
    const kept = plan.keepIndex === undefined ? [] : [conversation[plan.keepIndex]!];
    const tokensBefore = estimateTokens(conversation);
    const build = (requests: readonly string[]) => {
      const messages = [
        this.#summaryMessage(summary, requests, sessionId),
        ...kept,
        ...conversation.slice(plan.cut),
      ];
      return { messages, tokens: estimateTokens(messages) };
    };
    // The verbatim requests give way, oldest first, before the summary may grow the conversation.
    let verbatim = keptRequests;
    let { messages: compacted, tokens: tokensAfter } = build(verbatim);
    while (tokensAfter > tokensBefore && verbatim.length > 0) {
      verbatim = verbatim.slice(1);
      ({ messages: compacted, tokens: tokensAfter } = build(verbatim));
    }
    if (tokensAfter > tokensBefore) {
      throw new CompactionError(
        "summary_too_large",
        `the summary would grow the conversation (${tokensAfter} tokens after, ${tokensBefore} before)`,
      );
    }
    return {
      conversation: compacted,
      result: {
        ...emptyCompactionResult(),
        turnsCompacted: compactedTurns.size,
        tokensBefore,
        tokensAfter,
      },
    };
  }

  async #summarise(prompt: string, signal: AbortSignal | undefined): Promise<string> {
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", forwardAbort, { once: true });
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(abortedError(signal)), {
        once: true,
      });
    });
    aborted.catch(() => {});

    let completion: Promise<string>;
    try {
      completion = Promise.resolve(
        this.#client.complete({
          prompt,
          system: this.config.summarySystemPrompt ?? DEFAULT_SUMMARY_PROMPT,
          maxTokens: this.config.maxSummaryTokens,
          signal: controller.signal,
        }),
      );
    } catch (error) {
      completion = Promise.reject(error);
    }
    completion.catch(() => {});

    let text: unknown;
    try {
      text = await pTimeout(Promise.race([completion, aborted]), {
        milliseconds: this.config.summaryTimeoutMs,
        ...(this.config.timers ? { customTimers: this.config.timers } : {}),
      });
    } catch (error) {
      if (CompactionError.isInstance(error)) throw error;
      if (signal?.aborted) throw abortedError(signal);
      if (error instanceof TimeoutError) {
        controller.abort(error);
        throw new CompactionError(
          "timeout",
          `summary timed out after ${this.config.summaryTimeoutMs} ms`,
          { cause: error },
        );
      }
      throw new CompactionError("llm_error", `summariser failed: ${describe(error)}`, {
        cause: error,
      });
    } finally {
      signal?.removeEventListener("abort", forwardAbort);
    }
    if (typeof text !== "string") {
      throw new CompactionError("llm_error", `summariser returned ${typeof text}, not a string`);
    }
    if (text.trim() === "")
      throw new CompactionError("empty_summary", "summariser returned an empty summary");
    return text.trim();
  }

  #summaryMessage(
    summary: string,
    userMessages: readonly string[],
    sessionId: string,
  ): UserMessage {
    const content: TextBlock[] = [{ type: "text", text: `${SUMMARY_PREFIX}${summary}` }];
    for (const text of userMessages)
      content.push({ type: "text", text: `${EARLIER_USER_MESSAGE_PREFIX}${text}` });
    return createMessage({
      role: "user",
      sessionId,
      turnId: SUMMARY_TURN_ID,
      content,
      clock: this.config.clock ?? systemClock,
    });
  }
}

function abortedError(signal: AbortSignal | undefined): CompactionError {
  return new CompactionError("aborted", "compaction was aborted", { cause: signal?.reason });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The user's own words from the compacted part, oldest first: those kept verbatim by an
 * earlier summary, then the text of real user messages (not tool results).
 */
function collectUserRequests(old: readonly Message[]): string[] {
  const requests: string[] = [];
  for (const message of old) {
    if (message.role !== "user") continue;
    for (const block of message.content) {
      if (block.type !== "text") continue;
      if (isSummaryTurn(message.turnId)) {
        if (block.text.startsWith(EARLIER_USER_MESSAGE_PREFIX)) {
          requests.push(block.text.slice(EARLIER_USER_MESSAGE_PREFIX.length));
        }
      } else if (block.text.trim() !== "") {
        requests.push(block.text);
      }
    }
  }
  return requests;
}

/** The newest requests that fit in `budgetTokens`, oldest first. */
function keptUserMessages(requests: readonly string[], budgetTokens: number): string[] {
  const kept: string[] = [];
  let remaining = budgetTokens * 4;
  for (let index = requests.length - 1; index >= 0; index -= 1) {
    const request = requests[index]!;
    if (request.length > remaining) break;
    remaining -= request.length;
    kept.unshift(request);
  }
  return kept;
}

/** User requests for the prompt: at most a quarter of the transcript budget, newest kept. */
function fitUserRequests(requests: readonly string[], transcriptTokens: number): string[] {
  return keptUserMessages(requests, Math.floor(transcriptTokens / 4));
}

/** Tokens (chars / 4 plus framing) of texts kept in the summary message. */
function textTokens(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts)
    total += Math.ceil((EARLIER_USER_MESSAGE_PREFIX.length + text.length) / 4) + 4;
  return total;
}

/** Which messages a summary folds: those before `cut`, except `keepIndex` (kept verbatim). */
interface FoldPlan {
  cut: number;
  keepIndex?: number;
}

/** Index of the latest user request: a user message with text and no tool results. */
function latestRequestIndex(conversation: readonly Message[]): number {
  for (let index = conversation.length - 1; index >= 0; index -= 1) {
    const message = conversation[index]!;
    if (message.role !== "user" || isSummaryTurn(message.turnId)) continue;
    if (message.content.some((block) => block.type === "tool_result")) continue;
    if (message.content.some((block) => block.type === "text" && block.text.trim() !== ""))
      return index;
  }
  return -1;
}

/** The last user message (summary aside) with words of the user, tool results beside them or not. */
function latestUserWordsIndex(conversation: readonly Message[]): number {
  return conversation.findLastIndex(
    (message) =>
      message.role === "user" &&
      !isSummaryTurn(message.turnId) &&
      message.content.some((block) => block.type === "text" && block.text.trim() !== ""),
  );
}

/**
 * Plans the fold: the turns older than `keepRecentTurns`, and, when a target is known and
 * that would not reach it, later safe cut points (never between a tool use and its result),
 * oldest first, up to the latest assistant message. Past the latest user request, that
 * request is kept verbatim right after the summary.
 */
function planFold(
  conversation: readonly Message[],
  config: Readonly<LLMCompactorConfig>,
  context: CompactionContext,
): FoldPlan | undefined {
  const base = safeCutIndex(conversation, config.keepRecentTurns);
  const latest = latestRequestIndex(conversation);
  // The latest request stays verbatim even when its turn is old (a previous fold kept it
  // beside the summary), so folding again finds nothing new: idempotent.
  const baseline =
    base === 0
      ? undefined
      : latest !== -1 && latest < base
        ? { cut: base, keepIndex: latest }
        : { cut: base };
  const budget = targetBudget(config.targetUtilization, context, estimateTokens(conversation));
  if (budget === undefined) return baseline;

  const count = conversation.length;
  const suffix = new Array<number>(count + 1).fill(0);
  for (let index = count - 1; index >= 0; index -= 1)
    suffix[index] = suffix[index + 1]! + estimateMessageTokens(conversation[index]!);
  const reserve = config.maxSummaryTokens + config.keepUserMessagesTokens;
  const fits = (plan: FoldPlan) =>
    reserve +
      suffix[plan.cut]! +
      (plan.keepIndex === undefined ? 0 : estimateMessageTokens(conversation[plan.keepIndex]!)) <=
    budget;
  if (baseline === undefined ? suffix[0]! <= budget : fits(baseline)) return baseline;
  if (latest === -1) return baseline;

  // crossing[i] > 0 once summed: cutting at i would split a tool use from its result.
  const crossing = new Array<number>(count + 2).fill(0);
  const useIndex = new Map<string, number>();
  conversation.forEach((message, index) => {
    for (const block of message.content) {
      if (block.type === "tool_use") useIndex.set(block.id, index);
      else if (block.type === "tool_result") {
        const use = useIndex.get(block.toolUseId);
        if (use !== undefined && use < index) {
          crossing[use + 1]! += 1;
          crossing[index + 1]! -= 1;
        }
      }
    }
  });
  let lastAssistant = -1;
  for (let index = count - 1; index > latest; index -= 1) {
    if (conversation[index]!.role === "assistant") {
      lastAssistant = index;
      break;
    }
  }
  // User words sharing a message with tool results cannot be kept apart from their tool use:
  // the fold never goes past them.
  const words = latestUserWordsIndex(conversation);
  const limit = Math.min(
    lastAssistant === -1 ? latest : lastAssistant,
    words > latest ? words : Number.POSITIVE_INFINITY,
  );

  let best = baseline;
  let crossed = 0;
  for (let cut = 0; cut <= limit; cut += 1) {
    crossed += crossing[cut]!;
    if (cut <= base || crossed > 0 || cut === latest + 1) continue;
    const plan: FoldPlan = cut > latest ? { cut, keepIndex: latest } : { cut };
    best = plan;
    if (fits(plan)) return plan;
  }
  return best;
}
