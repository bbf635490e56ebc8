import type { CompactionError } from "../core/errors.js";
import type { CompactionFailedEvent, CompactionSkippedEvent, CompactionTrigger } from "./events.js";

/** One compactor's step of a run: its strategy, and its run's id when it started with one. */
export interface RunStep {
  readonly strategy: string;
  /** The `runId` its `compaction_start` event named (a summary's); none for a sync compactor. */
  readonly runId?: string | undefined;
}

/** The `compaction_failed` event that ends `step` (naming its run, so a tracer ends that run's span). */
export function failedEvent(
  trigger: CompactionTrigger,
  step: RunStep,
  error: CompactionError,
  consecutiveFailures: number,
): CompactionFailedEvent {
  const { strategy, runId } = step;
  const event: CompactionFailedEvent = {
    type: "compaction_failed",
    trigger,
    strategy,
    error,
    consecutiveFailures,
  };
  if (runId !== undefined) event.runId = runId;
  return event;
}

/** The `compaction_skipped` event that ends `step`, naming its run as {@link failedEvent} does. */
export function skippedEvent(
  trigger: CompactionTrigger,
  step: RunStep,
  reason: CompactionSkippedEvent["reason"],
  detail: string,
): CompactionSkippedEvent {
  const { strategy, runId } = step;
  const event: CompactionSkippedEvent = {
    type: "compaction_skipped",
    trigger,
    strategy,
    reason,
    detail,
  };
  if (runId !== undefined) event.runId = runId;
  return event;
}
