import * as z from "zod/mini";
import {
  type AsyncCompactor,
  BuiltInCompactor,
  type CompactAsyncOptions,
  type CompactionContext,
  type CompactionOutput,
  type CompactionResult,
  type CompactorLevels,
  emptyCompactionResult,
} from "../core/compactor.js";
import { ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { isPlainObject } from "../internal/plain-object.js";
import { assertLlmClient, compactorOptions } from "./config-schemas.js";
import {
  DEFAULT_LLM_COMPACTOR_OPTIONS,
  LLMCompactor,
  type LLMCompactorOptions,
  LLMCompactorOptionsSchema,
} from "./llm-compactor.js";
import { maskingChanges } from "./masking-changes.js";
import { runStages, type StagesOutput } from "./stage-loop.js";
import {
  DEFAULT_THRESHOLD_COMPACTOR_OPTIONS,
  ThresholdCompactor,
  type ThresholdCompactorOptions,
  ThresholdCompactorOptionsSchema,
} from "./threshold-compactor.js";

/**
 * Options of {@link HybridCompactor}: the masking options of {@link ThresholdCompactorOptions}
 * and the summary options of {@link LLMCompactorOptions}, with one threshold, one target and
 * one `keepRecentTurns` for both.
 */
export interface HybridCompactorOptions
  extends Omit<ThresholdCompactorOptions, "targetUtilization" | "dropOldest" | "clock">,
    Omit<LLMCompactorOptions, "targetUtilization"> {
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold: number;
  /**
   * Where a compaction aims, in (0, threshold]: masking stops once the context is at or below
   * it, and a summary is written only when masking cannot get there. @default 0.5
   */
  targetUtilization: number;
  /**
   * Tool results of this many most recent tool uses are never masked (as SWE-agent's M = 10);
   * `false` masks by turn only. Fewer (those of the newest step always) when they would take more of the window
   * than halfway from `targetUtilization` to `threshold`. @default 10
   */
  keepRecentToolUses?: number | false;
  /** Summary where one exists, the redaction notice otherwise. @default "summarize_or_redact" */
  toolCompaction: ThresholdCompactorOptions["toolCompaction"];
}

// The defaults and the schema are built in `@__PURE__` calls: a bundle without the hybrid
// compactor (a session's alone) drops them.

/** The defaults of {@link HybridCompactorOptions}. */
export const DEFAULT_HYBRID_COMPACTOR_OPTIONS: Readonly<HybridCompactorOptions> =
  /* @__PURE__ */ (() => {
    const { dropOldest: _dropOldest, ...masking } = DEFAULT_THRESHOLD_COMPACTOR_OPTIONS;
    return Object.freeze({
      ...DEFAULT_LLM_COMPACTOR_OPTIONS,
      ...masking,
      targetUtilization: 0.5,
      keepRecentToolUses: 10,
      toolCompaction: "summarize_or_redact",
      keepPathMentions: true,
    });
  })();

/** Schema of a partial {@link HybridCompactorOptions}. */
const HybridCompactorOptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    ...LLMCompactorOptionsSchema.shape,
    ...z.omit(ThresholdCompactorOptionsSchema, { dropOldest: true, clock: true }).shape,
  }))();

/** What a hybrid compaction did: masking counts, summary counts, and whether it summarized. */
export interface HybridCompactionResult extends CompactionResult {
  /** Whether a summary was written (masking alone could not reach the target). */
  summarized: boolean;
}

/** The options of `options` that `schema` knows: each part gets its own, derived, never listed by hand. */
function pick<T>(options: Readonly<HybridCompactorOptions>, schema: z.ZodMiniObject): Partial<T> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = (options as unknown as Record<string, unknown>)[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked as Partial<T>;
}

/**
 * The pipeline compactor: masks old tool results first (free, keeps the prompt cache stable)
 * and summarizes only when masking cannot bring the context down to `targetUtilization` — the
 * best cost/solve-rate result in "The Complexity Trap". A preset of the session's two stages
 * (a `ThresholdCompactor`, then an `LLMCompactor` due above the target), run by the session's
 * rule ({@link runStages}: the summary judged on the context masking left, written from the
 * messages as they were before masking) as one compactor, all or nothing. Usable as the
 * session's single `compactor`.
 *
 * @example
 * const session = new AgentSession({
 *   contextLimit: 200_000,
 *   compactor: new HybridCompactor({ client, targetUtilization: 0.5 }),
 * });
 */
export class HybridCompactor
  extends BuiltInCompactor<Promise<HybridOutput>>
  implements AsyncCompactor
{
  /** The validated options, defaults filled in. */
  readonly config: Readonly<HybridCompactorOptions>;
  readonly isAsync = true;
  /** The strategy name reported in compaction boundaries. */
  readonly strategy = "hybrid";
  protected readonly levels: CompactorLevels;
  readonly #masking: ThresholdCompactor;
  readonly #summary: LLMCompactor;

  /**
   * `client` writes the summaries; the other options are {@link HybridCompactorOptions}.
   * @throws {ValidationError} when the client or an option is missing or out of range.
   */
  constructor(options: { client: LlmClient } & Partial<HybridCompactorOptions>) {
    super();
    if (typeof (options as Partial<LlmClient> | undefined)?.complete === "function") {
      throw new ValidationError("HybridCompactorOptions", [
        { path: [], message: "must be one object with the client in it: { client, ...options }" },
      ]);
    }
    const { client, ...tuning } = isPlainObject(options) ? options : { client: undefined };
    assertLlmClient(client, "HybridCompactorOptions");
    const merged = compactorOptions(
      HybridCompactorOptionsSchema,
      DEFAULT_HYBRID_COMPACTOR_OPTIONS,
      tuning,
      "HybridCompactorOptions",
    );
    this.config = Object.freeze(merged);
    this.levels = this.config;
    this.#masking = new ThresholdCompactor(pick(merged, ThresholdCompactorOptionsSchema));
    // The summary stage is due when masking leaves the context above the target.
    this.#summary = new LLMCompactor(client, {
      ...pick<LLMCompactorOptions>(merged, LLMCompactorOptionsSchema),
      threshold: merged.targetUtilization,
    });
  }

  /** The synchronous path masks only (summaries need `compactAsync`). */
  compact(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    context?: CompactionContext,
  ): CompactionOutput {
    return this.#masking.compact(conversation, summaries, context);
  }

  /**
   * Masks, then summarizes when masking cannot reach the target. Without a known context, or
   * in a manual compaction, it masks and summarizes whatever is old enough. All or nothing: if
   * the summary fails it rejects with `CompactionError`, and the masking is not applied either.
   */
  compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions = {},
  ): Promise<HybridOutput> {
    return this.checkedRun(conversation, summaries, options);
  }

  protected async run(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: CompactAsyncOptions,
    estimate?: number,
  ): Promise<HybridOutput> {
    const stages = await runStages(
      [this.#masking, this.#summary],
      conversation,
      summaries,
      { ...options, estimate },
      { firstIsDue: true, readsSource: true },
    );
    return hybridOutput(conversation, stages, this.#summary, estimate);
  }
}

/** What {@link HybridCompactor.compactAsync} resolves to. */
type HybridOutput = {
  conversation: Message[];
  result: HybridCompactionResult;
  skipReason?: string;
};

/**
 * The hybrid's output from its stages: the masking's counts alone when no summary was written;
 * else the summary's, with the masking counts of the messages it kept (what it folded counts
 * as folded only).
 */
function hybridOutput(
  conversation: readonly Message[],
  stages: StagesOutput,
  summary: LLMCompactor,
  estimate = estimateTokens(conversation),
): HybridOutput {
  const masking = stages.changed.find((step) => step.compactor !== summary)?.output;
  const folded = stages.changed.find((step) => step.compactor === summary)?.output;
  const masked = masking?.conversation ?? conversation;
  const tokensBefore = masking?.result.tokensBefore ?? estimate;
  if (folded === undefined) {
    const summaryRan = stages.ran === summary && masking === undefined;
    return {
      conversation: [...masked],
      result: {
        ...(masking?.result ?? emptyCompactionResult()),
        summarized: false,
        tokensBefore,
        tokensAfter: masking?.result.tokensAfter ?? estimateTokens(masked),
      },
      ...(summaryRan && stages.skipReason !== undefined ? { skipReason: stages.skipReason } : {}),
    };
  }
  return {
    conversation: folded.conversation,
    result: {
      ...emptyCompactionResult(),
      ...keptMaskingChanges(conversation, masked, folded),
      turnsCompacted: folded.result.turnsCompacted,
      summarized: true,
      tokensBefore,
      tokensAfter: estimateTokens(folded.conversation),
      ...(folded.result.usage === undefined ? {} : { usage: folded.result.usage }),
    },
  };
}

/** The masking counts of the messages the summary kept: what it folded counts as folded only. */
function keptMaskingChanges(
  conversation: readonly Message[],
  masked: readonly Message[],
  folded: CompactionOutput,
): CompactionResult {
  const kept = new Set(folded.conversation);
  const before: Message[] = [];
  const after: Message[] = [];
  masked.forEach((message, index) => {
    if (!kept.has(message)) return;
    before.push(conversation[index]!);
    after.push(message);
  });
  return maskingChanges(before, after);
}
