import { compactorOptions } from "../compactors/config-schemas.js";
import {
  type CutLayout,
  cutLayout,
  firstFittingCut,
  keptRequestEnd,
  keptTokens,
  remainderBudget,
  retentionCut,
} from "../compactors/cut-plan.js";
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
import { latestRequestIndex } from "../core/conversation-structure.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import { type Clock, createMessage, systemClock } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import { isSummaryTurn, SUMMARY_TURN_ID, turnKey } from "../core/turn.js";
import { type CompactionUsage, usageIssues } from "../core/usage.js";
import { headOf } from "../internal/whole-characters.js";
import {
  type AnthropicCompactionClient,
  type AnthropicCompactorOptions,
  AnthropicCompactorOptionsSchema,
  COMPACTION_BETA,
  DEFAULT_ANTHROPIC_COMPACTOR_OPTIONS,
  MAX_COMPACTION_INSTRUCTIONS,
} from "./anthropic-compactor-options.js";
import { describe, isObject, readCompaction, validCuts } from "./compaction-response.js";
import { clientSecrets, redactSecrets } from "./redact.js";
import { toAnthropicMessages } from "./request.js";

export {
  type AnthropicCompactionClient,
  type AnthropicCompactionParams,
  type AnthropicCompactorOptions,
  COMPACTION_BETA,
  DEFAULT_ANTHROPIC_COMPACTOR_OPTIONS,
} from "./anthropic-compactor-options.js";

/** Estimated tokens the block takes (a summary and its signature), reserved when aiming at the target. */
const SUMMARY_RESERVE_TOKENS = 1024;
/** An automatic compaction does not summarize fewer estimated tokens than this. */
const MIN_SUMMARIZED_TOKENS = 256;

/**
 * On-demand compaction by the Anthropic API itself, as an `AsyncCompactor`: the older part of
 * the conversation goes to the Messages API with `compaction: { type: "summarize" }` (beta
 * `compact-2026-09-04`) and the conversation's own `system` and `tools`; the signed
 * `compaction` block that comes back leads the conversation, as an assistant message of its own
 * (turn `u0`), and the recent messages follow it unchanged, so the thinking in them stays valid
 * (the API's check accepts the summary it wrote). Its cost (`usage.iterations`) is in the
 * result's `usage`. A missing summary (empty content) rejects with `empty_summary`, an API
 * error (`compaction_*`, 529 `compaction_unavailable`, ...) with `llm_error` (the SDK error as
 * `cause`), a timeout with `timeout`, an abort with `aborted`: the conversation is left as it was.
 * Every later request must carry the beta header ({@link COMPACTION_BETA}).
 *
 * @example
 * const session = new AgentSession({
 *   contextLimit: 200_000,
 *   compactor: false,
 *   llmCompactor: new AnthropicCompactor({ client, model, system: SYSTEM, tools: TOOLS }),
 * });
 */
export class AnthropicCompactor
  extends BuiltInCompactor<Promise<CompactionOutput>>
  implements AsyncCompactor
{
  readonly isAsync = true;
  /** The strategy name reported in compaction boundaries. */
  readonly strategy = "anthropic";
  /** The validated options, defaults filled in (the client aside). */
  readonly config: Readonly<
    Required<
      Pick<
        AnthropicCompactorOptions,
        "model" | "threshold" | "keepRecentTurns" | "targetUtilization" | "maxTokens" | "timeoutMs"
      >
    > &
      Pick<AnthropicCompactorOptions, "instructions">
  >;
  readonly #client: AnthropicCompactionClient;
  readonly #options: AnthropicCompactorOptions;
  readonly #clock: Clock;
  protected readonly levels: CompactorLevels;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AnthropicCompactorOptions) {
    super();
    const parsed = compactorOptions(
      AnthropicCompactorOptionsSchema,
      DEFAULT_ANTHROPIC_COMPACTOR_OPTIONS,
      options,
      "AnthropicCompactorOptions",
    );
    const { threshold, keepRecentTurns, targetUtilization, maxTokens, timeoutMs } = parsed;
    this.config = Object.freeze({
      model: parsed.request?.model ?? parsed.model!,
      threshold,
      keepRecentTurns,
      targetUtilization,
      maxTokens,
      timeoutMs,
      ...(parsed.instructions === undefined ? {} : { instructions: parsed.instructions }),
    });
    this.#client = options.client;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    // The session keeps the user's latest request after every compaction, a manual one too
    // (when a cut before it exists; see #planCut).
    // No target: a server-side compaction is not timed by the session's prices.
    this.levels = { threshold };
  }

  protected run(
    conversation: readonly Message[],
    _summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
  ): Promise<CompactionOutput> {
    return this.#compact(conversation, options, false);
  }

  /** The session keeps the user's latest request (see `#planCut`). */
  protected override runTrusted(
    conversation: readonly Message[],
    _summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
  ): Promise<CompactionOutput> {
    return this.#compact(conversation, options, true);
  }

  /** The summary needs the API: the synchronous path changes nothing (use `compactAsync`). */
  compact(conversation: readonly Message[]): CompactionOutput {
    return onlyAsync(conversation, "AnthropicCompactor");
  }

  /**
   * Asks the API for a summary of the older part and puts the signed block in its place.
   * Resolves unchanged, with a `skipReason`, when there is no place to cut or too little to
   * summarize; rejects with `CompactionError` when the API writes no summary or fails.
   */
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
    keepRequest: boolean,
  ): Promise<CompactionOutput> {
    throwIfAborted(options.signal);
    const skip = (skipReason: string): CompactionOutput => ({
      conversation: [...conversation],
      result: emptyCompactionResult(),
      skipReason,
    });
    const cut = this.#planCut(conversation, options, keepRequest);
    if (cut === undefined) {
      return skip(
        "no place to cut: the older part would leave a tool call open, or nothing is older",
      );
    }
    const older = conversation.slice(0, cut);
    if (options.trigger !== "manual" && estimateTokens(older) < MIN_SUMMARIZED_TOKENS) {
      return skip("the part to summarize is too small for a summary to shrink the conversation");
    }

    const { blocks, usage } = await this.#summarize(older, options);
    const summary = createMessage({
      role: "assistant",
      sessionId: conversation[0]?.sessionId ?? "",
      turnId: SUMMARY_TURN_ID,
      content: blocks,
      clock: this.#clock,
      generated: "summary",
    });
    // A fold inside the turn of the user's latest request keeps it verbatim after the block.
    const latest = latestRequestIndex(conversation);
    const kept =
      options.trigger === "manual" || latest === -1 || latest >= cut
        ? []
        : conversation.slice(latest, keptRequestEnd(conversation, latest, cut));
    const compacted = [summary, ...kept, ...conversation.slice(cut)];
    const turns = new Set(
      older
        .filter((message) => !isSummaryTurn(message.turnId))
        .map((message) => turnKey(message.turnId)),
    );
    return {
      conversation: compacted,
      result: {
        ...emptyCompactionResult(),
        turnsCompacted: turns.size,
        tokensBefore: estimateTokens(conversation),
        tokensAfter: estimateTokens(compacted),
        ...(usage === undefined ? {} : { usage }),
      },
    };
  }

  /**
   * The cut: as far back as `keepRecentTurns` allows; later while the kept part would not fit
   * `targetUtilization` of the window (when the context is known), past the user's latest
   * request only when there is no cut before it (one long turn): that request is then kept
   * verbatim after the block (the session refuses an output without it), and the kept steps'
   * thinking goes stale; as late as the rules allow in a manual compaction (up to that request
   * when `keepRequest`: the session's run).
   */
  #planCut(
    conversation: readonly Message[],
    options: CompactAsyncOptions,
    keepRequest: boolean,
  ): number | undefined {
    const all = validCuts(conversation);
    const manual = options.trigger === "manual";
    if (manual && !keepRequest) return all.at(-1);
    // Automatic: the latest request of the user stays after the block, word for word.
    const layout = cutLayout(conversation);
    const latest = layout.latestRequest;
    const cuts = all.filter((cut) => latest === -1 || cut <= latest);
    // A manual compaction with no cut before the request (one long turn) folds it too: the
    // signed block holds it, and a /compact that does nothing would leave the user stuck.
    if (manual) return cuts.at(-1) ?? all.at(-1);
    const preferred = retentionCut(layout, this.config.keepRecentTurns, cuts);
    if (options.contextLimit === undefined || options.contextUsed === undefined) return preferred;
    const budget = remainderBudget(
      this.config.targetUtilization,
      options,
      layout.suffix[0]!,
      SUMMARY_RESERVE_TOKENS,
    );
    if (budget === undefined) return preferred;
    // One long turn (no cut before the request): a cut inside it, the request kept verbatim.
    const later = cuts.length > 0 ? cuts : inTurnCuts(layout, all);
    return firstFittingCut(
      later.filter((cut) => cut >= (preferred ?? 0)),
      (cut) => keptTokens(layout, cut) <= budget,
    );
  }

  /** The instructions of one run: the configured ones, and the run's (a hook's) after them. */
  #instructions(run: string | undefined): string | undefined {
    const parts = [this.config.instructions, run].filter(
      (part): part is string => part !== undefined && part.trim() !== "",
    );
    return parts.length === 0 ? undefined : headOf(parts.join("\n\n"), MAX_COMPACTION_INSTRUCTIONS);
  }

  /** The compaction request, and its block and cost; rejects with `CompactionError`. */
  async #summarize(
    older: readonly Message[],
    options: CompactAsyncOptions,
  ): Promise<{ blocks: ContentBlock[]; usage: CompactionUsage | undefined }> {
    const { params, betas, requestOptions, request } = this.#options;
    const system = request?.system ?? this.#options.system;
    const tools = request?.tools ?? this.#options.tools;
    const thinking = request?.thinking;
    const instructions = this.#instructions(options.instructions);
    const body = {
      ...params,
      model: this.config.model,
      max_tokens: this.config.maxTokens,
      ...(system === undefined ? {} : { system }),
      ...(tools === undefined ? {} : { tools }),
      ...(thinking === undefined ? {} : { thinking }),
      messages: toAnthropicMessages(older),
      compaction: { type: "summarize", ...(instructions === undefined ? {} : { instructions }) },
      betas: [COMPACTION_BETA, ...(betas ?? []).filter((beta) => beta !== COMPACTION_BETA)],
    };
    const response = await requestWithin(
      (signal) =>
        this.#client.beta.messages.create(body as never, { ...requestOptions, signal } as never),
      {
        signal: options.signal,
        milliseconds: this.config.timeoutMs,
        what: "compaction request",
        isTimeout: (error) => isObject(error) && error["name"] === "APIConnectionTimeoutError",
        failure: (error) => {
          const cause = redactSecrets(error, clientSecrets(this.#client));
          return new CompactionError("llm_error", `compaction request failed: ${describe(cause)}`, {
            cause,
          });
        },
      },
    );
    const compaction = readCompaction(response);
    const issues = compaction.usage === undefined ? [] : usageIssues(compaction.usage);
    if (issues.length > 0) {
      const cause = new ValidationError("compaction usage", issues);
      throw new CompactionError("llm_error", `compaction response reported ${cause.message}`, {
        cause,
      });
    }
    return compaction;
  }
}

/**
 * Cuts inside the turn of the user's latest request, which then stays verbatim after the block:
 * each before an assistant message (the request, a user message, goes right before it), and
 * only when the request holds no tool result (its call would be folded away).
 */
function inTurnCuts(layout: CutLayout, cuts: readonly number[]): number[] {
  const { conversation, latestRequest: latest } = layout;
  const request = conversation[latest];
  if (request === undefined || request.content.some((block) => block.type === "tool_result"))
    return [];
  return cuts.filter(
    (cut) =>
      cut > keptRequestEnd(conversation, latest, cut) && conversation[cut]?.role === "assistant",
  );
}
