import { trimOldest } from "../compactors/overflow-trim.js";
import type { CompactionRunOutcome } from "./compaction-report.js";
import type { CompactionTrigger } from "./events.js";
import { type Landing, replaceHistory } from "./landing.js";

/**
 * The last resort acts above this share of the window: what was appended since the last usage
 * is estimated, and an estimate a few percent low must not let a request over the window.
 */
export const TRIM_AT = 0.95;

/**
 * The last stage of a run, with its own rule: when the context is still above {@link TRIM_AT}
 * of the window, the oldest messages go (archived first) down to `trimTarget`.
 */
export async function trimOnOverflow(
  landing: Landing,
  trigger: CompactionTrigger,
  outcome: CompactionRunOutcome,
  begin: () => Promise<boolean>,
): Promise<void> {
  const { history, contextLimit, trimTarget, clock } = landing;
  const contextUsedBefore = landing.contextUsed();
  if (trimTarget === undefined || contextUsedBefore <= TRIM_AT * contextLimit) return;
  // Under the session's lease, as every compaction: the worker holding it compacts already.
  if (!(await begin())) return;
  // What the measure counts beyond the messages (system prompt, tools) stays.
  const overhead = Math.max(0, contextUsedBefore - history.meter.estimate);
  const budget = Math.floor(trimTarget * contextLimit) - overhead;
  const output = trimOldest(history.messages, budget, { clock });
  if (output === undefined) return;
  const repair = await replaceHistory(
    landing,
    history.messages,
    history.generation,
    output.conversation,
  );
  if (repair === undefined) {
    outcome.discarded = "conflict";
    return;
  }
  landing.emit({
    type: "context_trimmed",
    trigger,
    removed: output.removed,
    contextUsedBefore,
    contextUsedAfter: landing.contextUsed(),
    thinkingBlocksDropped: repair.thinkingBlocksDropped,
  });
  outcome.trimmed = output.removed;
  outcome.compacted = true;
}
