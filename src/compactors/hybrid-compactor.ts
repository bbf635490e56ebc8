import { z } from "zod";
import {
  type AsyncCompactor,
  type CompactionContext,
  type CompactionOutput,
  type CompactionResult,
  emptyCompactionResult,
  exceedsThreshold,
  isCompactionResultEmpty,
} from "../core/compactor.js";
import { CompactionError, parseOrThrow, ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/tokens.js";
import { assertCompactArguments } from "../core/validate-conversation.js";
import { targetIssues } from "./config-schemas.js";
import {
  DEFAULT_LLM_COMPACTOR_CONFIG,
  LLMCompactor,
  type LLMCompactorConfig,
  LLMCompactorConfigSchema,
  type SummariseOptions,
} from "./llm-compactor.js";
import { targetBudget } from "./target.js";
import {
  type CompactionConfig,
  CompactionConfigSchema,
  DEFAULT_COMPACTION_CONFIG,
  ThresholdCompactor,
} from "./threshold-compactor.js";
import { maskingChanges } from "./tool-masking.js";

/**
 * Configuration of {@link HybridCompactor}: the masking options of {@link CompactionConfig}
 * and the summary options of {@link LLMCompactorConfig}, with one threshold, one target and
 * one `keepRecentTurns` for both.
 */
export interface HybridCompactorConfig
  extends Omit<CompactionConfig, "targetUtilization">,
    Omit<LLMCompactorConfig, "targetUtilization"> {
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold: number;
  /**
   * Where a compaction aims, in (0, threshold]: masking stops once the context is at or below
   * it, and a summary is written only when masking cannot get there. @default 0.5
   */
  targetUtilization: number;
  /** Tool results of this many most recent tool uses are never masked (as SWE-agent's M = 10). @default 10 */
  keepRecentToolUses?: number;
  /** Summary where one exists, the redaction notice otherwise. @default "summarize_or_redact" */
  toolCompaction: CompactionConfig["toolCompaction"];
}

/** The defaults of {@link HybridCompactorConfig}. */
export const DEFAULT_HYBRID_COMPACTOR_CONFIG: Readonly<HybridCompactorConfig> = Object.freeze({
  ...DEFAULT_LLM_COMPACTOR_CONFIG,
  ...DEFAULT_COMPACTION_CONFIG,
  targetUtilization: 0.5,
  keepRecentToolUses: 10,
  toolCompaction: "summarize_or_redact",
});

/** Schema of a partial {@link HybridCompactorConfig}. */
export const HybridCompactorConfigSchema = z.strictObject({
  ...LLMCompactorConfigSchema.shape,
  ...CompactionConfigSchema.shape,
});

/** What a hybrid compaction did: masking counts, summary counts, and whether it summarised. */
export interface HybridCompactionResult extends CompactionResult {
  /** Whether a summary was written (masking alone could not reach the target). */
  summarized: boolean;
}

const MASKING_KEYS = [
  "threshold",
  "keepRecentTurns",
  "toolCompaction",
  "keepRecentToolUses",
  "targetUtilization",
  "clearAtLeast",
  "excludeTools",
  "clearToolInputs",
] as const;

/**
 * The pipeline compactor: masks old tool results first (free, keeps the prompt cache stable)
 * and summarises only when masking cannot bring the context down to `targetUtilization` — the
 * best cost/solve-rate result in "The Complexity Trap". The summariser sees the unmasked
 * messages. Usable as the session's single `compactor`.
 *
 * @example
 * const session = new AgentSession({
 *   contextLimit: 200_000,
 *   compactor: new HybridCompactor(client, { targetUtilization: 0.5 }),
 * });
 */
export class HybridCompactor implements AsyncCompactor {
  /** The validated configuration, defaults filled in. */
  readonly config: Readonly<HybridCompactorConfig>;
  readonly isAsync = true;
  /** The strategy name reported in compaction boundaries. */
  readonly strategy = "hybrid";
  readonly #masker: ThresholdCompactor;
  readonly #summariser: LLMCompactor;

  /** @throws {ValidationError} when a config field is out of range. */
  constructor(client: LlmClient, config: Partial<HybridCompactorConfig> = {}) {
    if (typeof client?.complete !== "function") {
      throw new ValidationError("HybridCompactor arguments", [
        { path: ["client"], message: "must be an LlmClient with a complete() method" },
      ]);
    }
    const parsed = parseOrThrow(HybridCompactorConfigSchema, config, "HybridCompactorConfig");
    const merged = { ...DEFAULT_HYBRID_COMPACTOR_CONFIG, ...parsed } as HybridCompactorConfig;
    const issues = targetIssues(merged);
    if (issues.length > 0) throw new ValidationError("HybridCompactorConfig", issues);
    const masking: Partial<CompactionConfig> = {};
    const summary: Partial<LLMCompactorConfig> = {};
    for (const [key, value] of Object.entries(merged)) {
      if (value === undefined) continue;
      if ((MASKING_KEYS as readonly string[]).includes(key))
        (masking as Record<string, unknown>)[key] = value;
      if (key in LLMCompactorConfigSchema.shape) (summary as Record<string, unknown>)[key] = value;
    }
    this.#masker = new ThresholdCompactor(masking);
    this.#summariser = new LLMCompactor(client, summary);
    this.config = Object.freeze({ ...merged, ...this.#masker.config });
  }

  shouldCompact(contextUsed: number, contextLimit: number): boolean {
    return exceedsThreshold(contextUsed, contextLimit, this.config.threshold);
  }

  /** The synchronous path masks only (summaries need `compactAsync`). */
  compact(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    context?: CompactionContext,
  ): CompactionOutput {
    return this.#masker.compact(conversation, summaries, context);
  }

  /**
   * Masks, then summarises when masking cannot reach the target. Without a known context, or
   * in a manual compaction, it masks and summarises whatever is old enough. All or nothing: if
   * the summary fails it rejects with `CompactionError`, and the masking is not applied either.
   */
  async compactAsync(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    options: SummariseOptions = {},
  ): Promise<{ conversation: Message[]; result: HybridCompactionResult }> {
    assertCompactArguments(conversation, summaries, options);
    if (options.signal?.aborted) {
      throw new CompactionError("aborted", "compaction was aborted", {
        cause: options.signal.reason,
      });
    }
    const manual = options.trigger === "manual";
    const tokensBefore = estimateTokens(conversation);
    const masked = this.#masker.compact(conversation, summaries, options);
    const maskedTokens = estimateTokens(masked.conversation);
    const budget = targetBudget(
      this.config.targetUtilization,
      { ...options, trigger: "auto" },
      tokensBefore,
    );
    const maskingReached = budget !== undefined && maskedTokens <= budget;
    const maskOnly = () => ({
      conversation: masked.conversation,
      result: { ...masked.result, summarized: false, tokensBefore, tokensAfter: maskedTokens },
    });
    if (!manual && maskingReached) return maskOnly();

    const summarised = await this.#summariser.summariseInto(
      masked.conversation,
      conversation,
      summaries,
      options,
    );
    if (isCompactionResultEmpty(summarised.result)) return maskOnly();

    // Masking counts only for the messages the summary kept.
    const kept = new Set(summarised.conversation);
    const before: Message[] = [];
    const after: Message[] = [];
    masked.conversation.forEach((message, index) => {
      if (!kept.has(message)) return;
      before.push(conversation[index]!);
      after.push(message);
    });
    const maskedKept = maskingChanges(before, after);
    return {
      conversation: summarised.conversation,
      result: {
        ...emptyCompactionResult(),
        ...maskedKept,
        turnsCompacted: summarised.result.turnsCompacted,
        summarized: true,
        tokensBefore,
        tokensAfter: estimateTokens(summarised.conversation),
      },
    };
  }
}
