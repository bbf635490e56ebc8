import type { CompactionEvent } from "../../src/index.js";

/** What the agent examples count of their compactions, by strategy, and failures. */
export interface CompactionCounts {
  threshold: number;
  llm: number;
  failed: number;
}

/** A session listener that counts compactions and logs a line for each one that changed something. */
export function logCompactions(counts: CompactionCounts, log: (line: string) => void) {
  return (event: CompactionEvent): void => {
    if (event.type === "compaction_end" && event.tokensAfter < event.tokensBefore) {
      if (event.strategy === "threshold" || event.strategy === "llm") counts[event.strategy] += 1;
      const { result } = event;
      const what =
        event.strategy === "threshold"
          ? `${result.toolResultsSummarized} tool result(s) replaced by their compact summaries`
          : `${result.turnsCompacted} turn(s) folded into one summary message`;
      log(
        `  ⇣ compaction (${event.strategy}): ${what}; context ${event.contextUsedBefore.toLocaleString("en-US")} → ${event.contextUsedAfter.toLocaleString("en-US")} tokens`,
      );
    } else if (event.type === "compaction_failed") {
      counts.failed += 1;
      log(`  ! compaction failed (${event.strategy}): ${event.error.code}: ${event.error.message}`);
    }
  };
}
