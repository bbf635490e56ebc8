import pTimeout, { TimeoutError } from "p-timeout";
import { z } from "zod";
import {
  type AsyncCompactor,
  type CompactAsyncOptions,
  type CompactionOutput,
  emptyCompactionResult,
  exceedsThreshold,
} from "../core/compactor.js";
import { CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import type { Message, TextBlock, UserMessage } from "../core/message.js";
import { type Clock, createMessage, systemClock } from "../core/message-factory.js";
import { estimateTokens } from "../core/tokens.js";
import { isSummaryTurn, SUMMARY_TURN_ID, turnKey } from "../core/turn.js";
import {
  KEEP_RECENT_TURNS_SCHEMA,
  POSITIVE_INT_SCHEMA,
  THRESHOLD_SCHEMA,
} from "./config-schemas.js";
import {
  buildSummaryPrompt,
  DEFAULT_SUMMARY_PROMPT,
  EARLIER_USER_MESSAGE_PREFIX,
  SUMMARY_PREFIX,
} from "./prompt.js";
import { safeCutIndex } from "./retention.js";
import { formatTranscript } from "./transcript.js";

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
  /** Token budget of the transcript sent to the summariser, so the request always fits. @default 50000 */
  maxTranscriptTokens: number;
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
  maxToolInputChars: 2000,
  maxToolResultChars: 4000,
  keepUserMessagesTokens: 2000,
});

const nonNegativeInt = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more");

/** Schema of a partial {@link LLMCompactorConfig}. */
export const LLMCompactorConfigSchema = z.strictObject({
  threshold: THRESHOLD_SCHEMA.exactOptional(),
  keepRecentTurns: KEEP_RECENT_TURNS_SCHEMA.exactOptional(),
  summarySystemPrompt: z.string().min(1, "must be a non-empty string").exactOptional(),
  maxSummaryTokens: POSITIVE_INT_SCHEMA.exactOptional(),
  summaryTimeoutMs: POSITIVE_INT_SCHEMA.exactOptional(),
  maxTranscriptTokens: POSITIVE_INT_SCHEMA.exactOptional(),
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
  readonly #client: LlmClient;

  /** @throws {ValidationError} when a config field is out of range. */
  constructor(client: LlmClient, config: Partial<LLMCompactorConfig> = {}) {
    if (typeof client?.complete !== "function") {
      throw new ValidationError("LLMCompactor arguments", [
        { path: ["client"], message: "must be an LlmClient with a complete() method" },
      ]);
    }
    const parsed = parseOrThrow(LLMCompactorConfigSchema, config, "LLMCompactorConfig");
    this.#client = client;
    this.config = Object.freeze({
      ...DEFAULT_LLM_COMPACTOR_CONFIG,
      ...parsed,
    } as LLMCompactorConfig);
  }

  shouldCompact(contextUsed: number, contextLimit: number): boolean {
    return exceedsThreshold(contextUsed, contextLimit, this.config.threshold);
  }

  /** Summaries need the LLM: the synchronous path changes nothing (use `compactAsync`). */
  compact(conversation: readonly Message[]): CompactionOutput {
    return { conversation: [...conversation], result: emptyCompactionResult() };
  }

  async compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions = {},
  ): Promise<CompactionOutput> {
    const { signal } = options;
    if (signal?.aborted) throw abortedError(signal);

    const cut = safeCutIndex(conversation, this.config.keepRecentTurns);
    const old = conversation.slice(0, cut);
    const recent = conversation.slice(cut);
    const compactedTurns = new Set(
      old
        .filter((message) => !isSummaryTurn(message.turnId))
        .map((message) => turnKey(message.turnId)),
    );
    if (compactedTurns.size === 0) {
      return { conversation: [...conversation], result: emptyCompactionResult() };
    }

    const userRequests = collectUserRequests(old);
    const transcript = formatTranscript(old, summaries, {
      maxToolInputChars: this.config.maxToolInputChars,
      maxToolResultChars: this.config.maxToolResultChars,
      maxChars: this.config.maxTranscriptTokens * 4,
    });
    const summary = await this.#summarise(
      buildSummaryPrompt({
        userRequests: fitUserRequests(userRequests, this.config.maxTranscriptTokens),
        transcript,
        instructions: options.instructions,
      }),
      signal,
    );

    const sessionId = conversation[0]?.sessionId ?? "";
    const summaryMessage = this.#summaryMessage(
      summary,
      keptUserMessages(userRequests, this.config.keepUserMessagesTokens),
      sessionId,
    );
    const compacted = [summaryMessage, ...recent];
    return {
      conversation: compacted,
      result: {
        ...emptyCompactionResult(),
        turnsCompacted: compactedTurns.size,
        tokensBefore: estimateTokens(conversation),
        tokensAfter: estimateTokens(compacted),
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
