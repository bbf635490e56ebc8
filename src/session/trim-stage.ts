import { keepingTrimOptions, trimOldest } from "../compactors/overflow-trim.js";
import type { CompactionRunOutcome } from "./compaction-report.js";
import type { CompactionTrigger } from "./events.js";
import { archiveFailure, type Landing, replaceHistory } from "./landing.js";

/**
 * The last resort acts above this share of the window: what was appended since the last usage
 * is estimated, and an estimate a few percent low must not let a request over the window.
 */
export const TRIM_AT = 0.95;

/**
 * The last stage of a run, with its own rule: when the context is still above {@link TRIM_AT}
 * of the window, the oldest messages go (archived first) down to `trimTarget`; when the
 * compactor that just ran is still due (`below`, the share it aims at), down to that share.
 * When the archive fails (it threw or outlived `archiveTimeoutMs`), they go without it, as with
 * `archive: false`: the request must fit, and the removed messages are in the report and event.
 */
export async function trimOnOverflow(
  landing: Landing,
  trigger: CompactionTrigger,
  outcome: CompactionRunOutcome,
  run: {
    begin: () => Promise<boolean>;
    signal?: AbortSignal | undefined;
    below?: number | undefined;
    /** Where what the still-due compactor keeps starts: left alone unless above {@link TRIM_AT}. */
    keepFrom?: number | undefined;
  },
): Promise<void> {
  const { history, contextLimit, clock } = landing;
  const contextUsedBefore = landing.contextUsed();
  // The share to trim down to: the still-due compactor's, and above TRIM_AT the lower of it and
  // `trimOnOverflow`'s.
  let trimTarget = run.below;
  const mustFit = contextUsedBefore > TRIM_AT * contextLimit;
  if (mustFit && landing.trimTarget !== undefined)
    trimTarget = Math.min(trimTarget ?? landing.trimTarget, landing.trimTarget);
  if (trimTarget === undefined) return;
  // Under the session's lease, as every compaction: the worker holding it compacts already.
  if (!(await run.begin())) return;
  // What the measure counts beyond the messages (system prompt, tools) stays.
  const overhead = Math.max(0, contextUsedBefore - history.meter.estimate);
  const budget = Math.floor(trimTarget * contextLimit) - overhead;
  // The notice keeps what a summary would, without a summarizer: the user's words and the files.
  const options = keepingTrimOptions(contextLimit, clock);
  // What the compactor keeps stays, unless the next request would not fit the window.
  const keeping =
    mustFit || run.keepFrom === undefined ? options : { ...options, latestCut: run.keepFrom };
  const output = trimOldest(history.messages, budget, keeping);
  if (output === undefined) return;
  const trim = (keeping: Landing) =>
    replaceHistory(keeping, history.messages, history.generation, output.conversation, run.signal);
  let repair: Awaited<ReturnType<typeof replaceHistory>>;
  try {
    repair = await trim(landing);
  } catch (error) {
    const failure = archiveFailure(error);
    if (failure === undefined || failure.code === "aborted") throw error;
    outcome.error ??= failure;
    repair = await trim({ ...landing, archive: undefined });
  }
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
