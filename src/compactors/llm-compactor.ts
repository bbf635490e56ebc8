import * as z from "zod/mini";
import {
  type AsyncCompactor,
  BuiltInCompactor,
  type CompactAsyncOptions,
  type CompactionContext,
  type CompactionOutput,
  type CompactorLevels,
  onlyAsync,
} from "../core/compactor.js";
import { assertMessages } from "../core/entry-validation.js";
import type { LlmClient } from "../core/llm-client.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import {
  CLOCK_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  TIMERS_SCHEMA,
  TimerMillisecondsSchema,
} from "../core/option-schemas.js";
import {
  assertLlmClient,
  compactorOptions,
  KEEP_RECENT_TOOL_USES_SCHEMA,
  KEEP_RECENT_TURNS_SCHEMA,
  NON_NEGATIVE_INT_SCHEMA,
  POSITIVE_INT_SCHEMA,
  THRESHOLD_SCHEMA,
} from "./config-schemas.js";
import { retainedStart } from "./retention.js";
import type { SummaryOverflow } from "./summary-chunking.js";
import { foldIntoSummary, type Summarizer } from "./summary-fold.js";

export type { SummaryOverflow } from "./summary-chunking.js";

import type { Timers } from "../core/abort.js";

export type { Timers };

/** Options of {@link LLMCompactor}. */
export interface LLMCompactorOptions {
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold: number;
  /** Turns at the end kept verbatim; a whole number ≥ 1. @default 3 */
  keepRecentTurns: number;
  /** The summarizer's system prompt. @default DEFAULT_SUMMARY_PROMPT */
  summarySystemPrompt?: string;
  /**
   * The most tokens the summary may take: each request's `maxTokens`. A reply over twice it by
   * the local estimate (a client that does not pass `maxTokens` on) fails with
   * `summary_too_long`. @default 2048
   */
  maxSummaryTokens: number;
  /** Milliseconds before the summary call is abandoned (`timeout`); at most 2^31−1. @default 60000 */
  summaryTimeoutMs: number;
  /**
   * Token budget (about 4 characters a token) of one summarization request: system prompt,
   * user prompt and transcript. A longer compacted part is summarized in parts that each fit,
   * then combined
   * (see `summaryOverflow`), so no request exceeds the summarizer's window. @default 50000
   */
  maxTranscriptTokens: number;
  /**
   * When the compacted part does not fit one request: `chunk` summarizes it in parts and
   * combines their summaries (map-reduce, more requests, nothing dropped); `truncate` tightens
   * per-item caps and then drops the oldest items so one request fits. @default "chunk"
   */
  summaryOverflow: SummaryOverflow;
  /**
   * Hysteresis: when folding the turns older than `keepRecentTurns` would leave the context
   * above this utilization (counting a summary of `maxSummaryTokens`), newer messages are
   * folded too, oldest first at safe points, inside one long turn too, until it fits; the
   * latest user message is kept verbatim, and so is the kept part (`keepRecentToolUses`,
   * `keepRecentShare`). In (0, threshold]; needs the context the session passes.
   * @default 0.2
   */
  targetUtilization?: number;
  /**
   * The newest tool uses a fold inside the recent turns keeps verbatim (the agent has just read
   * them); `false` keeps none but the newest exchange. Manual compactions fold past them. Fewer
   * (those of the newest step always) when they would take more of the window than halfway from
   * `targetUtilization` to `threshold`. @default 8
   */
  keepRecentToolUses?: number | false;
  /**
   * The newest messages that take up to this share of the window a fold inside the recent
   * turns keeps verbatim, with `keepRecentToolUses`. In (0, 1]. @default 0.1
   */
  keepRecentShare?: number;
  /**
   * Minimum gain in estimated tokens (the folded part minus the summary message with a summary
   * of `maxSummaryTokens` and its verbatim user messages): a summary that would free fewer is
   * not requested, and the conversation is returned unchanged. Ignored by manual
   * (`forceCompact`) compactions. @default 0
   */
  clearAtLeast: number;
  /** Characters of one tool input shown to the summarizer. @default 2000 */
  maxToolInputChars: number;
  /** Characters of one tool result shown to the summarizer. @default 4000 */
  maxToolResultChars: number;
  /**
   * Tokens of the user's newest folded messages kept verbatim beside the summary (carried from
   * summary to summary; older ones are folded into it); 0 keeps none.
   * @default 10% of the window (2000 when the window is not known)
   */
  keepUserMessagesTokens?: number;
  /**
   * After each summary, the identifiers, file paths and user constraints of the folded part
   * that are neither in the summary nor in what stays are added to the summary message, in a
   * section of at most this many tokens (no second LLM call), each line naming the message or
   * tool call it came from; 0 turns the check off.
   * @default 1% of the window, at least 400 (400 when the window is not known)
   */
  factsSectionTokens?: number;
  /** Timers for the deadline. @default the global timers */
  timers?: Timers;
  /** Clock for the summary message's `createdAt`. @default the wall clock */
  clock?: Clock;
}

/** The seed's name of {@link LLMCompactorOptions}, kept for code written against it. */
export type LLMCompactorConfig = LLMCompactorOptions;

// The defaults and the schema are built in `@__PURE__` calls: a bundle without the LLM compactor
// (a session's alone) drops them.

/** The defaults of {@link LLMCompactorOptions}. */
export const DEFAULT_LLM_COMPACTOR_OPTIONS: Readonly<LLMCompactorOptions> =
  /* @__PURE__ */ Object.freeze({
    threshold: 0.75,
    keepRecentTurns: 3,
    maxSummaryTokens: 2048,
    summaryTimeoutMs: 60_000,
    maxTranscriptTokens: 50_000,
    summaryOverflow: "chunk",
    clearAtLeast: 0,
    maxToolInputChars: 2000,
    maxToolResultChars: 4000,
    targetUtilization: 0.2,
    keepRecentToolUses: 8,
    keepRecentShare: 0.1,
  });

const nonNegativeInt = NON_NEGATIVE_INT_SCHEMA;

/** Schema of a partial {@link LLMCompactorOptions}. */
export const LLMCompactorOptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    threshold: z.exactOptional(THRESHOLD_SCHEMA),
    keepRecentTurns: z.exactOptional(KEEP_RECENT_TURNS_SCHEMA),
    summarySystemPrompt: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
    maxSummaryTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
    summaryTimeoutMs: z.exactOptional(TimerMillisecondsSchema),
    maxTranscriptTokens: z.exactOptional(POSITIVE_INT_SCHEMA),
    summaryOverflow: z.exactOptional(
      z.enum(["chunk", "truncate"], { error: 'must be "chunk" or "truncate"' }),
    ),
    targetUtilization: z.exactOptional(THRESHOLD_SCHEMA),
    keepRecentToolUses: z.exactOptional(KEEP_RECENT_TOOL_USES_SCHEMA),
    keepRecentShare: z.exactOptional(THRESHOLD_SCHEMA),
    clearAtLeast: z.exactOptional(nonNegativeInt),
    maxToolInputChars: z.exactOptional(nonNegativeInt),
    maxToolResultChars: z.exactOptional(nonNegativeInt),
    keepUserMessagesTokens: z.exactOptional(nonNegativeInt),
    factsSectionTokens: z.exactOptional(nonNegativeInt),
    timers: z.exactOptional(TIMERS_SCHEMA),
    clock: z.exactOptional(CLOCK_SCHEMA),
  }))();

/**
 * The asynchronous compactor: asks an LLM to summarize the turns older than
 * `keepRecentTurns`, and replaces them with one user message holding the summary. A client
 * with `acceptsConversation` gets the conversation as the agent last sent it with the summary
 * instruction appended (read from the prompt cache); others, and conversations that would not
 * fit, get a transcript. What the requests cost, when the client reports it, is the result's
 * `usage`. When there is nothing worth folding, or the summary would not shrink the
 * conversation, it resolves unchanged with a `skipReason`.
 *
 * @example
 * const compactor = new LLMCompactor(new AnthropicLlmClient({ model: "claude-haiku-4-5" }));
 * const { conversation } = await compactor.compactAsync(messages, new Map());
 */
export class LLMCompactor
  extends BuiltInCompactor<Promise<CompactionOutput>>
  implements AsyncCompactor
{
  /** The validated options, defaults filled in. */
  readonly config: Readonly<LLMCompactorOptions>;
  readonly isAsync = true;
  /** The strategy name reported in compaction boundaries. */
  readonly strategy: string = "llm";
  protected readonly levels: CompactorLevels;
  readonly #summarizer: Summarizer;

  /** @throws {ValidationError} when an option is out of range. */
  constructor(client: LlmClient, config: Partial<LLMCompactorOptions> = {}) {
    super();
    assertLlmClient(client, "LLMCompactor arguments");
    this.config = Object.freeze(
      compactorOptions(
        LLMCompactorOptionsSchema,
        DEFAULT_LLM_COMPACTOR_OPTIONS,
        config,
        "LLMCompactorOptions",
      ),
    );
    this.levels = this.config;
    this.#summarizer = { client, options: this.config };
  }

  protected run(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
    _estimate?: number,
    source: readonly Message[] = conversation,
  ): Promise<CompactionOutput> {
    return foldIntoSummary(this.#summarizer, conversation, source, summaries, options);
  }

  /** Where what an automatic fold keeps verbatim starts: its newest tool uses and share of the window. */
  keeps(conversation: readonly Message[], context: CompactionContext): number {
    assertMessages(conversation, "conversation");
    return retainedStart(
      conversation,
      { ...this.config, keepRecentTurns: undefined },
      context.contextLimit,
    );
  }

  /** Summaries need the LLM: the synchronous path changes nothing (use `compactAsync`). */
  compact(conversation: readonly Message[]): CompactionOutput {
    return onlyAsync(conversation, "LLMCompactor");
  }

  async compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions = {},
  ): Promise<CompactionOutput> {
    return this.checkedRun(conversation, summaries, options);
  }
}
