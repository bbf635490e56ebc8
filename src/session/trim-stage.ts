import type { Clock } from "../core/message-factory.js";
import type { CompactionRunOutcome } from "./compaction-report.js";
import type { CompactionTrigger } from "./events.js";
import type { Landing, Replaced } from "./landing.js";
import { lastResortTrim, type TrimShare } from "./trim-share.js";

/**
 * The last stage of a run, with its own rule (see `trimShare`): the oldest messages go
 * (archived first) down to `run.share` of the window. When the archive fails (it threw or
 * outlived `archiveTimeoutMs`), they go without it, as with `archive: false`: the request must
 * fit, and the removed messages are in the report and event. Nothing while tool calls wait for
 * their results (no request goes out before them, and a trim would make their thinking stale),
 * found before or while it lands: the run then reports the landing's `aborted`. After the caller's
 * abort, it lands only without waiting for the archive: with one, the put is refused at once
 * (`aborted`, reported) and nothing goes, for the next call to trim. A stored session's store
 * that fails the swap (`store_error`, reported): the trim lands in the worker's copy alone.
 */
export async function trimOnOverflow(
  landing: Landing,
  trigger: CompactionTrigger,
  outcome: CompactionRunOutcome,
  run: TrimShare & {
    /** The context measure when the run decided to trim. */
    contextUsedBefore: number;
    clock: Clock;
    signal?: AbortSignal | undefined;
  },
): Promise<void> {
  const { history } = landing;
  if (history.openToolUses().unanswered.length > 0) return;
  const { contextUsedBefore } = run;
  // What the measure counts beyond the messages (system prompt, tools) stays; in the estimate's
  // tokens, as the trim counts the messages.
  const { contextLimit, overhead } = history.meter.planning;
  const output = lastResortTrim(history.messages, run, {
    contextLimit,
    overhead,
    clock: run.clock,
  });
  if (output === undefined) return;
  const trim = (options: { archive?: false; local?: true } = {}) =>
    landing.replace(history.messages, history.generation, output.conversation, run.signal, options);
  let replaced: Replaced = await trim();
  if (replaced.status === "archive_failed") {
    outcome.error ??= replaced.failure;
    // The caller stopped waiting for the archive: nothing goes without it (the next call trims).
    if (run.signal?.aborted === true) return;
    replaced = await trim({ archive: false });
  }
  if (replaced.status === "moved" && replaced.failure.code === "store_error") {
    // The store failed the swap (a stored session): the request must fit all the same, so the
    // trim lands in this worker's copy alone; the store keeps everything, and the next call
    // undoes it (to trim again, stored, once the store answers).
    outcome.error ??= replaced.failure;
    replaced = await trim({ local: true });
  }
  if (replaced.status === "moved") {
    // The history moved under it (calls appended that wait): reported, never a rejection.
    outcome.error ??= replaced.failure;
    return;
  }
  if (replaced.status !== "landed") {
    outcome.discarded = "conflict";
    return;
  }
  landing.events.emit({
    type: "context_trimmed",
    trigger,
    removed: output.removed,
    contextUsedBefore,
    contextUsedAfter: history.meter.contextUsed,
    thinkingBlocksDropped: replaced.repair.thinkingBlocksDropped,
  });
  outcome.trimmed = output.removed;
  outcome.compacted = true;
}

/**
 * After the last resort: a context still above the window marks the outcome `overWindow` and
 * is told (`context_overflow`), with what would bring it under.
 */
export function reportOverflow(
  landing: Landing,
  trigger: CompactionTrigger,
  outcome: CompactionRunOutcome,
  trimTarget: number | undefined,
): void {
  const { contextUsed, contextLimit } = landing.history.meter;
  if (contextUsed <= contextLimit) return;
  outcome.overWindow = true;
  landing.events.emit({
    type: "context_overflow",
    trigger,
    contextUsed,
    contextLimit,
    detail:
      trimTarget === undefined
        ? "compaction could not bring the context under the window: configure a summarizer (llmCompactor, HybridCompactor) or trimOnOverflow"
        : "even trimming could not bring the context under the window: the newest messages alone exceed it",
  });
}
