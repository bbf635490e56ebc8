import type {
  CompactedResponse,
  ResponseCompactParams,
} from "openai/resources/responses/responses";
import { compactorOptions } from "../compactors/config-schemas.js";
import {
  cutLayout,
  firstFittingCut,
  innerSafeCuts,
  keptTokens,
  recentToolUsesCut,
  remainderBudget,
  retentionCut,
} from "../compactors/cut-plan.js";
import { type FoldPlan, foldedMessages, keptVerbatim } from "../compactors/fold-plan.js";
import { keptToolUses } from "../compactors/retention.js";
import { requestWithin, throwIfAborted } from "../core/abort.js";
import {
  type AsyncCompactor,
  BuiltInCompactor,
  type CompactAsyncOptions,
  type CompactionOutput,
  type CompactorLevels,
  emptyCompactionResult,
  onlyAsync,
} from "../core/compactor.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { systemClock } from "../core/message-factory.js";
import { estimateTokens, rememberValid } from "../core/message-memo.js";
import { isSummaryTurn, SUMMARY_TURN_ID, turnKey } from "../core/turn.js";
import type { CompactionUsage } from "../core/usage.js";
import {
  DEFAULT_OPENAI_COMPACTOR_OPTIONS,
  type OpenAICompactorOptions,
  OpenAICompactorOptionsSchema,
} from "./openai-compactor-options.js";
import { COMPACTION_ITEM_TYPE, fromResponsesInput } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";
import { compactionUsageFromOpenAI } from "./usage.js";

export {
  DEFAULT_OPENAI_COMPACTOR_OPTIONS,
  type OpenAICompactionClient,
  type OpenAICompactorOptions,
} from "./openai-compactor-options.js";

/** Estimated tokens the compaction item takes, reserved when the cut aims at the target. */
const COMPACTION_RESERVE_TOKENS = 1024;

/** The validated options, defaults filled in. */
type OpenAICompactorConfig = Readonly<
  OpenAICompactorOptions &
    Required<Pick<OpenAICompactorOptions, keyof typeof DEFAULT_OPENAI_COMPACTOR_OPTIONS>>
>;

/**
 * An `AsyncCompactor` on OpenAI's `/responses/compact`: the older items go to the endpoint,
 * and what it returns (the user messages, then one opaque `compaction` item) replaces them, the
 * recent items after it unchanged (their reasoning items and ids as the model wrote them).
 * Older means before the last `keepRecentTurns` turns or, inside a long turn, before the
 * newest `keepRecentToolUses` tool uses (the user's latest request then stays, word for word,
 * right after the compaction item); when what they keep would leave the context above the
 * threshold, the cut moves later until the kept part fits `targetUtilization`. The cut never
 * splits a call from its output nor a reasoning item from the item it came with. Failures are
 * `CompactionError`s (`llm_error`, also for a usage that is not whole numbers ≥ 0, `timeout`,
 * `aborted`), and then nothing changes.
 *
 * @example
 * const session = new AgentSession({
 *   contextLimit: 400_000, compactor: false,
 *   llmCompactor: new OpenAICompactor({ client: new OpenAI(), model: "gpt-6.1-sol" }),
 * });
 */
export class OpenAICompactor
  extends BuiltInCompactor<Promise<CompactionOutput>>
  implements AsyncCompactor
{
  readonly isAsync = true;
  readonly strategy = "openai";
  readonly #config: OpenAICompactorConfig;
  protected readonly levels: CompactorLevels;

  /** @throws {ValidationError} naming the field when an option is invalid. */
  constructor(options: OpenAICompactorOptions) {
    super();
    this.#config = Object.freeze<OpenAICompactorConfig>(
      compactorOptions(
        OpenAICompactorOptionsSchema,
        DEFAULT_OPENAI_COMPACTOR_OPTIONS,
        options,
        "OpenAICompactorOptions",
      ),
    );
    // No target: a server-side compaction is not timed by the session's prices.
    this.levels = { threshold: this.#config.threshold };
  }

  protected run(
    conversation: readonly Message[],
    _summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
  ): Promise<CompactionOutput> {
    return this.#compact(conversation, options);
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
    return this.checkedRun(conversation, summaries, options);
  }

  async #compact(
    conversation: readonly Message[],
    options: CompactAsyncOptions,
  ): Promise<CompactionOutput> {
    throwIfAborted(options.signal);
    const plan = this.#plan(conversation, options);
    const folded = plan === undefined ? [] : foldedMessages(conversation, plan);
    const turns = new Set(
      folded
        .filter((message) => !isSummaryTurn(message.turnId))
        .map((message) => turnKey(message.turnId)),
    );
    if (plan === undefined || turns.size === 0) {
      return {
        conversation: [...conversation],
        result: emptyCompactionResult(),
        skipReason: "nothing older than the recent turns and tool uses to compact",
      };
    }
    const response = await this.#request(folded, options);
    const usage = checkedUsage(response);
    const compacted = this.#compactedMessages(response, conversation[0]!.sessionId);
    const out = [
      ...compacted,
      ...keptVerbatim(conversation, plan),
      ...conversation.slice(plan.cut),
    ];
    return {
      conversation: out,
      result: {
        ...emptyCompactionResult(),
        turnsCompacted: turns.size,
        tokensBefore: estimateTokens(conversation),
        tokensAfter: estimateTokens(out),
        ...(usage === undefined ? {} : { usage }),
      },
    };
  }

  /**
   * The cut: the later of where `keepRecentTurns` and `keepRecentToolUses` put it; later still,
   * to the first cut whose kept part fits `targetUtilization`, when the kept part would leave
   * the context above the threshold. Past the user's latest request, it is kept verbatim.
   */
  #plan(conversation: readonly Message[], options: CompactAsyncOptions): FoldPlan | undefined {
    const layout = cutLayout(conversation);
    const { keepRecentTurns, targetUtilization, threshold } = this.#config;
    const cuts = innerSafeCuts(layout).filter((cut) => !endsWithReasoning(conversation[cut - 1]));
    const byTurns = retentionCut(layout, keepRecentTurns, cuts) ?? 0;
    // As many of the newest tool uses as fit halfway from the target to the threshold.
    const toolUses = keptToolUses(conversation, this.#config, options.contextLimit);
    const byToolUses =
      toolUses === undefined ? 0 : (recentToolUsesCut(layout, toolUses, cuts) ?? 0);
    let cut = Math.max(byTurns, byToolUses);
    const kept = (cut: number) => keptTokens(layout, cut);
    const whole = layout.suffix[0]!;
    const ceiling = remainderBudget(threshold, options, whole, COMPACTION_RESERVE_TOKENS);
    const budget = remainderBudget(targetUtilization, options, whole, COMPACTION_RESERVE_TOKENS);
    if (ceiling !== undefined && budget !== undefined && kept(cut) > ceiling) {
      const later = cuts.filter((candidate) => candidate > cut);
      cut = firstFittingCut(later, (candidate) => kept(candidate) <= budget) ?? cut;
    }
    if (cut === 0) return undefined;
    const latest = layout.latestRequest;
    return latest !== -1 && latest < cut ? { cut, keepIndex: latest } : { cut };
  }

  async #request(
    folded: readonly Message[],
    options: CompactAsyncOptions,
  ): Promise<CompactedResponse> {
    const { client, model, params, requestOptions } = this.#config;
    const instructions = [this.#config.instructions, options.instructions]
      .filter((part) => part !== undefined)
      .join("\n\n");
    const body: ResponseCompactParams = {
      ...params,
      model,
      input: toResponsesInput(folded),
      ...(instructions === "" ? {} : { instructions }),
    };
    return requestWithin(
      (signal) => client.responses.compact(body, { ...requestOptions, signal }),
      {
        signal: options.signal,
        milliseconds: this.#config.timeoutMs,
        what: "compaction request",
        isTimeout: (error) => isObject(error) && error["name"] === "APIConnectionTimeoutError",
        failure: (error) =>
          new CompactionError("llm_error", `compaction request failed: ${describe(error)}`, {
            cause: error,
          }),
      },
    );
  }

  /** The endpoint's output as our messages, all in the summary's turn; one compaction item. */
  #compactedMessages(response: CompactedResponse, sessionId: string): Message[] {
    const output: unknown = isObject(response) ? response.output : undefined;
    const items = Array.isArray(output) ? (output as Record<string, unknown>[]) : [];
    const compactions = items.filter(
      (item) => isObject(item) && item["type"] === COMPACTION_ITEM_TYPE,
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
        clock: this.#config.clock ?? systemClock,
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

/** Whether a message ends with a reasoning item: a cut after it would part it from its item. */
function endsWithReasoning(message: Message | undefined): boolean {
  const last = message?.content.at(-1);
  return last?.type === "opaque" && last.block["type"] === "reasoning";
}

/** What the endpoint's usage cost; a count that is not a whole number ≥ 0 fails the compaction. */
function checkedUsage(response: CompactedResponse): CompactionUsage | undefined {
  try {
    return compactionUsageFromOpenAI(isObject(response) ? response.usage : undefined);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    throw new CompactionError("llm_error", `compaction response reported ${error.message}`, {
      cause: error,
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
