import * as z from "zod/mini";
import {
  BuiltInCompactor,
  type CompactionContext,
  type CompactionOutput,
  type CompactorLevels,
} from "../core/compactor.js";
import { assertMessages } from "../core/entry-validation.js";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { estimateTokens, rememberConversation } from "../core/message-memo.js";
import { BOOLEAN_SCHEMA, CLOCK_SCHEMA } from "../core/option-schemas.js";
import {
  CLEAR_TOOL_INPUTS_SCHEMA,
  compactorOptions,
  KEEP_RECENT_TOOL_USES_SCHEMA,
  KEEP_RECENT_TURNS_SCHEMA,
  NON_NEGATIVE_INT_SCHEMA,
  THRESHOLD_SCHEMA,
  TOOL_NAMES_SCHEMA,
} from "./config-schemas.js";
import { dropToTarget } from "./drop-oldest.js";
import { retainedStart } from "./retention.js";
import { maskToolResults, type ToolCompaction } from "./tool-masking.js";

export { REDACTION_NOTICE, type ToolCompaction } from "./tool-masking.js";

/** Options of {@link ThresholdCompactor}. */
export interface ThresholdCompactorOptions {
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold: number;
  /** Turns at the end whose tool results are kept (see `keepRecentToolUses`); a whole number ≥ 1. @default 3 */
  keepRecentTurns: number;
  /**
   * `summarize` replaces an old tool result with its compact summary (from the map passed
   * to `compact`, else the block's own `compactSummary`) and leaves it alone when it has none;
   * `redact` replaces it with {@link REDACTION_NOTICE}; `summarize_or_redact` uses the summary
   * where there is one and the notice otherwise. @default "summarize"
   */
  toolCompaction: ToolCompaction;
  /**
   * Within-turn retention, like Anthropic's `clear_tool_uses` `keep`: results of tool uses
   * older than this many most recent ones are compacted even inside the recent turns (one
   * long agent turn of hundreds of tool calls). The newest results of the latest turn are never
   * compacted. A whole number ≥ 1; `false` (or unset), only turns older than `keepRecentTurns`
   * are compacted. With a `targetUtilization` and the window known, fewer (those of the newest step always) are
   * kept when they would take more of the window than halfway from `targetUtilization` to
   * `threshold` (a compaction then leaves room for several steps). @default false
   */
  keepRecentToolUses?: number | false;
  /**
   * The kept part: the newest messages that take up to this share of the window, and those of
   * the newest `keepRecentToolUses` tool uses in any turn, stay whole whatever the target: their
   * results are not masked, and `dropOldest` does not remove them (unless that would leave the
   * context above `threshold`).
   * Needs the context the session passes to `compact`; a manual compaction keeps only the
   * newest tool uses. In (0, 1]. @default undefined (none)
   */
  keepRecentShare?: number;
  /**
   * Hysteresis: once triggered, compact oldest first only until the context is at or below
   * this utilization, in (0, threshold]. Needs the context the session passes to `compact`;
   * without it (or unset) every eligible result is compacted. @default undefined (compact all eligible)
   */
  targetUtilization?: number;
  /**
   * Minimum gain in estimated tokens: a compaction that would free fewer is skipped (the
   * conversation is returned unchanged, counting nothing), since every rewrite invalidates
   * the prompt-cache prefix. Ignored by manual (`forceCompact`) compactions. @default 0
   */
  clearAtLeast: number;
  /** Names of tools whose results (and inputs) are never compacted, e.g. a memory tool. @default [] */
  excludeTools: readonly string[];
  /**
   * Also clear the inputs of the tool uses whose results are compacted: `true` for every tool,
   * or the names of the tools. The input becomes a small JSON object noting what was cleared
   * (its size and top-level keys). @default false
   */
  clearToolInputs: boolean | readonly string[];
  /**
   * The placeholder of a masked result keeps the file paths the result named (its first 8 KB
   * and last 2 KB read), as ` (mentions: src/a.ts, …)`: a grep hit or a stack trace outlives
   * its output. Costs a read of each masked result's text. @default false
   */
  keepPathMentions: boolean;
  /**
   * One rewrite, not many: when masking cannot bring the context down to `targetUtilization`,
   * the oldest messages go in the same compaction, as `trimOnOverflow` removes them (archived
   * under recall handles, never splitting a tool exchange, summaries and the latest request
   * kept, a notice carrying the user's words and the file ledger). `clearAtLeast` is judged on
   * the whole rewrite. Needs a target and the session's context. @default false
   */
  dropOldest: boolean;
  /** Clock for the notice's `createdAt` (`dropOldest`). @default the wall clock */
  clock?: Clock;
}

/** The seed's name for {@link ThresholdCompactorOptions}. */
export type CompactionConfig = ThresholdCompactorOptions;

/** The defaults of {@link ThresholdCompactorOptions}. */
export const DEFAULT_THRESHOLD_COMPACTOR_OPTIONS: Readonly<ThresholdCompactorOptions> =
  Object.freeze({
    threshold: 0.75,
    keepRecentTurns: 3,
    toolCompaction: "summarize",
    clearAtLeast: 0,
    excludeTools: Object.freeze([]) as readonly string[],
    clearToolInputs: false,
    keepPathMentions: false,
    dropOldest: false,
  });

/** Schema of a partial {@link ThresholdCompactorOptions}. */
export const ThresholdCompactorOptionsSchema = z.strictObject({
  threshold: z.exactOptional(THRESHOLD_SCHEMA),
  keepRecentTurns: z.exactOptional(KEEP_RECENT_TURNS_SCHEMA),
  toolCompaction: z.exactOptional(
    z.enum(["summarize", "redact", "summarize_or_redact"], {
      error: 'must be "summarize", "redact" or "summarize_or_redact"',
    }),
  ),
  keepRecentToolUses: z.exactOptional(KEEP_RECENT_TOOL_USES_SCHEMA),
  keepRecentShare: z.exactOptional(THRESHOLD_SCHEMA),
  targetUtilization: z.exactOptional(THRESHOLD_SCHEMA),
  clearAtLeast: z.exactOptional(NON_NEGATIVE_INT_SCHEMA),
  excludeTools: z.exactOptional(TOOL_NAMES_SCHEMA),
  clearToolInputs: z.exactOptional(CLEAR_TOOL_INPUTS_SCHEMA),
  keepPathMentions: z.exactOptional(BOOLEAN_SCHEMA),
  dropOldest: z.exactOptional(BOOLEAN_SCHEMA),
  clock: z.exactOptional(CLOCK_SCHEMA),
});

/**
 * The synchronous compactor: replaces the content of old tool results by their compact
 * summary or a redaction notice (and optionally clears their inputs). Fast, free and never
 * fails.
 *
 * @example
 * const compactor = new ThresholdCompactor({ keepRecentToolUses: 10, toolCompaction: "redact" });
 * const { conversation, result } = compactor.compact(messages, new Map());
 */
export class ThresholdCompactor extends BuiltInCompactor<CompactionOutput> {
  /** The validated options, defaults filled in. */
  readonly config: Readonly<ThresholdCompactorOptions>;
  readonly isAsync = false;
  /** The strategy name reported in compaction boundaries. */
  readonly strategy = "threshold";
  protected readonly levels: CompactorLevels;

  /** @throws {ValidationError} when an option is out of range. */
  constructor(options: Partial<ThresholdCompactorOptions> = {}) {
    super();
    const merged = compactorOptions(
      ThresholdCompactorOptionsSchema,
      DEFAULT_THRESHOLD_COMPACTOR_OPTIONS,
      options,
      "ThresholdCompactorOptions",
    );
    if (merged.dropOldest && merged.targetUtilization === undefined) {
      throw new ValidationError("ThresholdCompactorOptions", [
        { path: ["dropOldest"], message: "needs a targetUtilization to remove the oldest down to" },
      ]);
    }
    this.config = Object.freeze({
      ...merged,
      excludeTools: Object.freeze([...merged.excludeTools]),
      clearToolInputs:
        typeof merged.clearToolInputs === "boolean"
          ? merged.clearToolInputs
          : Object.freeze([...merged.clearToolInputs]),
    });
    this.levels = this.config;
  }

  protected run(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    context: CompactionContext,
    estimate?: number,
  ): CompactionOutput {
    const config = this.config;
    if (!config.dropOldest) {
      return maskToolResults(conversation, summaries, config, context, estimate);
    }
    // Masking and removal are one rewrite: the minimum gain is judged on both together.
    const tokensBefore = estimate ?? estimateTokens(conversation);
    const masking = { ...config, clearAtLeast: 0 };
    const masked = maskToolResults(conversation, summaries, masking, context, tokensBefore);
    return dropToTarget(conversation, masked, config, context, tokensBefore);
  }

  /** Where what this compactor keeps whole starts: its recent turns, newest tool uses and share. */
  keeps(conversation: readonly Message[], context: CompactionContext): number {
    assertMessages(conversation, "conversation");
    return retainedStart(conversation, this.config, context.contextLimit);
  }

  /**
   * Compacts eligible tool results, oldest first. `context` (passed by the session) lets it
   * stop at `targetUtilization`; without it every eligible result is compacted.
   */
  compact(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
    context?: CompactionContext,
  ): CompactionOutput {
    const output = this.checkedRun(conversation, summaries, context);
    // Made from a conversation just validated, the output is valid too: what checks it next (a
    // conversion back to the provider's messages) finds it known.
    const { tokensAfter } = output.result;
    if (tokensAfter !== undefined) rememberConversation(output.conversation, tokensAfter);
    return output;
  }
}
