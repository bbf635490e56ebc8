import { z } from "zod";
import {
  type CompactionOutput,
  type CompactionResult,
  type Compactor,
  emptyCompactionResult,
  exceedsThreshold,
} from "../core/compactor.js";
import { parseOrThrow } from "../core/errors.js";
import type { Message, ToolResultBlock, UserMessage } from "../core/message.js";
import { estimateTokens } from "../core/tokens.js";
import { turnKey } from "../core/turn.js";
import { KEEP_RECENT_TURNS_SCHEMA, THRESHOLD_SCHEMA } from "./config-schemas.js";
import { oldTurnKeys } from "./retention.js";

/** What replaces a tool result's content in `redact` mode. */
export const REDACTION_NOTICE = "[Content redacted for context management]";

/** How old tool results are shrunk. */
export type ToolCompaction = "summarize" | "redact";

/** Configuration of {@link ThresholdCompactor}. */
export interface CompactionConfig {
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold: number;
  /** Turns at the end left untouched; a whole number ≥ 1. @default 3 */
  keepRecentTurns: number;
  /**
   * `summarize` replaces an old tool result with its compact summary (from the map passed
   * to `compact`, else the block's own `compactSummary`) and leaves it alone when it has none;
   * `redact` replaces it with {@link REDACTION_NOTICE}. @default "summarize"
   */
  toolCompaction: ToolCompaction;
}

/** The defaults of {@link CompactionConfig}. */
export const DEFAULT_COMPACTION_CONFIG: Readonly<CompactionConfig> = Object.freeze({
  threshold: 0.75,
  keepRecentTurns: 3,
  toolCompaction: "summarize",
});

/** Schema of a partial {@link CompactionConfig}. */
export const CompactionConfigSchema = z.strictObject({
  threshold: THRESHOLD_SCHEMA.exactOptional(),
  keepRecentTurns: KEEP_RECENT_TURNS_SCHEMA.exactOptional(),
  toolCompaction: z.enum(["summarize", "redact"]).exactOptional(),
});

/**
 * The synchronous compactor: replaces the content of tool results in old turns by their
 * compact summary or a redaction notice. Fast, free and never fails.
 *
 * @example
 * const compactor = new ThresholdCompactor({ keepRecentTurns: 2, toolCompaction: "redact" });
 * const { conversation, result } = compactor.compact(messages, new Map());
 */
export class ThresholdCompactor implements Compactor {
  /** The validated configuration, defaults filled in. */
  readonly config: Readonly<CompactionConfig>;
  readonly isAsync = false;

  /** @throws {ValidationError} when a config field is out of range. */
  constructor(config: Partial<CompactionConfig> = {}) {
    const parsed = parseOrThrow(CompactionConfigSchema, config, "CompactionConfig");
    this.config = Object.freeze({ ...DEFAULT_COMPACTION_CONFIG, ...parsed });
  }

  shouldCompact(contextUsed: number, contextLimit: number): boolean {
    return exceedsThreshold(contextUsed, contextLimit, this.config.threshold);
  }

  compact(
    conversation: readonly Message[],
    summaries: ReadonlyMap<string, string>,
  ): CompactionOutput {
    const result = emptyCompactionResult();
    const old = oldTurnKeys(conversation, this.config.keepRecentTurns);
    if (old.size === 0) return { conversation: [...conversation], result };

    const tokensBefore = estimateTokens(conversation);
    const compacted = conversation.map((message) =>
      message.role === "user" && old.has(turnKey(message.turnId))
        ? this.#compactMessage(message, summaries, result)
        : message,
    );
    return {
      conversation: compacted,
      result: { ...result, tokensBefore, tokensAfter: estimateTokens(compacted) },
    };
  }

  #compactMessage(
    message: UserMessage,
    summaries: ReadonlyMap<string, string>,
    result: CompactionResult,
  ): UserMessage {
    let changed = false;
    const content = message.content.map((block) => {
      if (block.type !== "tool_result") return block;
      const replacement = this.#replacementFor(block, summaries);
      if (replacement === undefined || block.content === replacement) return block;
      changed = true;
      if (this.config.toolCompaction === "summarize") result.toolResultsSummarized += 1;
      else result.toolResultsRedacted += 1;
      return { ...block, content: replacement } satisfies ToolResultBlock;
    });
    return changed ? { ...message, content } : message;
  }

  #replacementFor(
    block: ToolResultBlock,
    summaries: ReadonlyMap<string, string>,
  ): string | undefined {
    if (this.config.toolCompaction === "redact") return REDACTION_NOTICE;
    return summaries.get(block.toolUseId) ?? block.compactSummary;
  }
}
