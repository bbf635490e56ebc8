import type {
  CompactedResponse,
  ResponseCompactParams,
} from "openai/resources/responses/responses";
import { recentStart } from "../compactors/retention.js";
import { requestWithin } from "../core/abort.js";
import {
  type AsyncCompactor,
  type CompactAsyncOptions,
  type CompactionOutput,
  emptyCompactionResult,
  exceedsThreshold,
  onlyAsync,
} from "../core/compactor.js";
import { latestSafeCut, safeCuts } from "../core/conversation-structure.js";
import { assertCompactArguments } from "../core/entry-validation.js";
import { CompactionError, ValidationError, type ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { type Clock, systemClock } from "../core/message-factory.js";
import { estimateTokens, rememberValid } from "../core/message-memo.js";
import { isSummaryTurn, SUMMARY_TURN_ID, turnKey } from "../core/turn.js";
import { isPlainObject } from "../internal/plain-object.js";
import { hasResponsesMethod, type OpenAIRequestOptions } from "./llm-client.js";
import { COMPACTION_ITEM_TYPE, fromResponsesInput } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";
import { compactionUsageFromOpenAI } from "./usage.js";

/** The client shape {@link OpenAICompactor} needs: `responses.compact`. */
export interface OpenAICompactionClient {
  responses: {
    compact(
      body: ResponseCompactParams,
      options?: OpenAIRequestOptions,
    ): PromiseLike<CompactedResponse>;
  };
}

/** Options of {@link OpenAICompactor}. */
export interface OpenAICompactorOptions {
  /** The client (an `OpenAI` or `AzureOpenAI`). */
  client: OpenAICompactionClient;
  /** The model that compacts (the one the conversation runs on). */
  model: string;
  /** The request's `instructions` (your system prompt), so the compaction reads as the conversation did. @default none */
  instructions?: string;
  /** Compact when `contextUsed / contextLimit` is strictly above this, in (0, 1]. @default 0.75 */
  threshold?: number;
  /** Turns at the end sent on unchanged after the compaction item. @default 3 */
  keepRecentTurns?: number;
  /** The compaction request is aborted after this many milliseconds (`timeout`). @default 120000 */
  timeoutMs?: number;
  /** Extra body fields (`prompt_cache_key`, …). @default none */
  params?: Omit<Partial<ResponseCompactParams>, "model" | "input" | "instructions">;
  /** SDK request options. @default none */
  requestOptions?: OpenAIRequestOptions;
  /** Clock for the new messages' `createdAt`. @default the wall clock */
  clock?: Clock;
}

/** Defaults of {@link OpenAICompactorOptions}. */
export const DEFAULT_OPENAI_COMPACTOR_OPTIONS = Object.freeze({
  threshold: 0.75,
  keepRecentTurns: 3,
  timeoutMs: 120_000,
});

function checkOptions(options: OpenAICompactorOptions): void {
  if (!isPlainObject(options)) {
    throw new ValidationError("OpenAICompactorOptions", [
      { path: [], message: "must be an object" },
    ]);
  }
  const issues: ValidationIssue[] = [];
  const { client, model, threshold, keepRecentTurns, timeoutMs, instructions, clock } = options;
  if (!hasResponsesMethod(client, "compact"))
    issues.push({ path: ["client"], message: "must be an OpenAI client (with responses.compact)" });
  if (typeof model !== "string" || model === "")
    issues.push({ path: ["model"], message: "must be a non-empty string" });
  if (
    threshold !== undefined &&
    !(typeof threshold === "number" && threshold > 0 && threshold <= 1)
  )
    issues.push({ path: ["threshold"], message: "must be a number in (0, 1]" });
  if (keepRecentTurns !== undefined && !(Number.isInteger(keepRecentTurns) && keepRecentTurns >= 1))
    issues.push({ path: ["keepRecentTurns"], message: "must be a whole number, 1 or more" });
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0))
    issues.push({ path: ["timeoutMs"], message: "must be a finite number above 0" });
  // Node clamps a longer timer to 1 ms: every request would time out at once.
  else if (timeoutMs !== undefined && timeoutMs > 2 ** 31 - 1)
    issues.push({ path: ["timeoutMs"], message: "must be at most 2147483647 (about 24.8 days)" });
  if (instructions !== undefined && typeof instructions !== "string")
    issues.push({ path: ["instructions"], message: "must be a string" });
  if (clock !== undefined && typeof clock !== "function")
    issues.push({ path: ["clock"], message: "must be a function" });
  if (issues.length > 0) throw new ValidationError("OpenAICompactorOptions", issues);
}

/**
 * An `AsyncCompactor` on OpenAI's `/responses/compact`: the items older than the last
 * `keepRecentTurns` turns go to the endpoint, and what it returns (the user messages, then one
 * opaque `compaction` item) replaces them, the recent items after it unchanged (their reasoning
 * items and ids as the model wrote them). The cut never splits a call from its output. Failures
 * are `CompactionError`s (`llm_error`, `timeout`, `aborted`), and then nothing changes.
 *
 * @example
 * const session = new AgentSession({
 *   contextLimit: 400_000, compactor: false,
 *   llmCompactor: new OpenAICompactor({ client: new OpenAI(), model: "gpt-6.1-sol" }),
 * });
 */
export class OpenAICompactor implements AsyncCompactor {
  readonly isAsync = true;
  readonly strategy = "openai";
  readonly #options: OpenAICompactorOptions;
  readonly #threshold: number;
  readonly #keepRecentTurns: number;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: OpenAICompactorOptions) {
    checkOptions(options);
    this.#options = { ...options };
    this.#threshold = options.threshold ?? DEFAULT_OPENAI_COMPACTOR_OPTIONS.threshold;
    this.#keepRecentTurns =
      options.keepRecentTurns ?? DEFAULT_OPENAI_COMPACTOR_OPTIONS.keepRecentTurns;
  }

  /** Whether `contextUsed / contextLimit` is strictly above the threshold. */
  shouldCompact(contextUsed: number, contextLimit: number): boolean {
    return exceedsThreshold(contextUsed, contextLimit, this.#threshold);
  }

  /** Changes nothing: the work needs the API (see `compactAsync`). */
  compact(conversation: readonly Message[]): CompactionOutput {
    return onlyAsync(conversation, "OpenAICompactor");
  }

  /** Compacts the older items with `/responses/compact`. Rejects with `CompactionError`. */
  async compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions = {},
  ): Promise<CompactionOutput> {
    const tokensBefore = assertCompactArguments(conversation, summaries, options);
    const cut = latestSafeCut(
      safeCuts(conversation),
      recentStart(conversation, this.#keepRecentTurns),
    );
    const older = conversation.slice(0, cut);
    const turns = new Set(
      older
        .filter((message) => !isSummaryTurn(message.turnId))
        .map((message) => turnKey(message.turnId)),
    );
    if (turns.size === 0) {
      return {
        conversation: [...conversation],
        result: emptyCompactionResult(),
        skipReason: "nothing older than the recent turns to compact",
      };
    }
    const response = await this.#request(older, options);
    const compacted = this.#compactedMessages(response, conversation[0]!.sessionId);
    const out = [...compacted, ...conversation.slice(cut)];
    const usage = compactionUsageFromOpenAI(response.usage);
    return {
      conversation: out,
      result: {
        ...emptyCompactionResult(),
        turnsCompacted: turns.size,
        tokensBefore,
        tokensAfter: estimateTokens(out),
        ...(usage === undefined ? {} : { usage }),
      },
    };
  }

  async #request(
    older: readonly Message[],
    options: CompactAsyncOptions,
  ): Promise<CompactedResponse> {
    const { client, model, params, requestOptions } = this.#options;
    const instructions = [this.#options.instructions, options.instructions]
      .filter((part) => part !== undefined)
      .join("\n\n");
    const body: ResponseCompactParams = {
      ...params,
      model,
      input: toResponsesInput(older),
      ...(instructions === "" ? {} : { instructions }),
    };
    return requestWithin(
      (signal) => client.responses.compact(body, { ...requestOptions, signal }),
      {
        signal: options.signal,
        milliseconds: this.#options.timeoutMs ?? DEFAULT_OPENAI_COMPACTOR_OPTIONS.timeoutMs,
        what: "compaction request",
        isTimeout: (error) =>
          isPlainObjectLike(error) && error.name === "APIConnectionTimeoutError",
        failure: (error) =>
          new CompactionError("llm_error", `compaction request failed: ${describe(error)}`, {
            cause: error,
          }),
      },
    );
  }

  /** The endpoint's output as our messages, all in the summary's turn; one compaction item. */
  #compactedMessages(response: CompactedResponse, sessionId: string): Message[] {
    const output: unknown = isPlainObjectLike(response) ? response.output : undefined;
    const items = Array.isArray(output) ? (output as Record<string, unknown>[]) : [];
    const compactions = items.filter(
      (item) => isPlainObjectLike(item) && item.type === COMPACTION_ITEM_TYPE,
    );
    if (compactions.length !== 1) {
      throw new CompactionError(
        "llm_error",
        `expected exactly one compaction item in the response, got ${compactions.length}`,
      );
    }
    let messages: Message[];
    try {
      messages = fromResponsesInput(items, {
        sessionId,
        clock: this.#options.clock ?? systemClock,
      });
    } catch (error) {
      throw new CompactionError("llm_error", "the compaction response holds malformed items", {
        cause: error,
      });
    }
    // The library wrote them, from the API's output: the summary's turn, marked as such.
    const summary = messages.map(
      (message) =>
        ({ ...message, turnId: { ...SUMMARY_TURN_ID }, generated: "summary" }) as Message,
    );
    rememberValid(summary);
    return summary;
  }
}

function isPlainObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
