import { keepingTrimOptions, type TrimOutput, trimOldest } from "../compactors/overflow-trim.js";
import { type Compactor, compactorTarget } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import type { History } from "./history.js";
import type { SessionEvents } from "./session-events.js";
import { strategyOf } from "./strategy.js";

/**
 * The last resort acts above this share of the window: what was appended since the last usage
 * is estimated, and an estimate a few percent low must not let a request over the window.
 */
export const TRIM_AT = 0.95;

/** Where the last resort trims down to, and why. */
export interface TrimShare {
  /** The share of the window to trim down to. */
  share: number;
  /** Above {@link TRIM_AT}: the next request would not fit the window. */
  mustFit: boolean;
  /** Where what the still-due compactor keeps starts: left alone unless above {@link TRIM_AT}. */
  keepFrom?: number | undefined;
}

/** What a run tells the last resort about its compactors. */
export interface RunSoFar {
  /** The last compactor the run ran (it was due), whether or not it changed anything. */
  ran: Compactor | undefined;
  /** Whether a compactor's change landed. */
  landed: boolean;
  /** Whether a compactor failed (not the archive): it aims at nothing then. */
  failed: boolean;
}

/** The measure the last resort is judged on. */
export interface TrimMeasure {
  contextUsed: number;
  contextLimit: number;
  /** What the measure counts beyond the messages (system prompt, tools): it stays. */
  overhead: number;
  /** The conversation as it stands (what the still-due compactor's `keeps` reads). */
  messages: readonly Message[];
}

/** The compactors of a run and `trimOnOverflow`'s target (`undefined`: off). */
export interface TrimSettings {
  compactors: readonly Compactor[];
  trimTarget: number | undefined;
}

/**
 * Whether the last stage of a run trims, and down to what share of the window: when the context
 * is still above {@link TRIM_AT} of the window, down to `trimTarget` (`trimOnOverflow`'s); when
 * the compactor that just ran is still due (see {@link stillDue}), down to the share it aims at
 * (above {@link TRIM_AT}, the lower of the two). `undefined`: no trim. The rule of every path,
 * the session's and the stateless ones'; `overheadAboveTrigger` is told when the system prompt
 * and tools alone are above the compactor's trigger.
 */
export function trimShareOf(
  measure: TrimMeasure,
  settings: TrimSettings,
  run: RunSoFar,
  overheadAboveTrigger?: (ran: Compactor) => void,
): TrimShare | undefined {
  const { contextUsed, contextLimit } = measure;
  const due = run.failed ? {} : stillDue(measure, settings, run, overheadAboveTrigger);
  let share = due.below;
  // The system prompt and tools alone over the window (or a usage far above the estimate): no
  // trim makes the request fit, and one down to the latest request would only lose context.
  const mustFit = contextUsed > TRIM_AT * contextLimit && measure.overhead < contextLimit;
  const { trimTarget } = settings;
  if (mustFit && trimTarget !== undefined) share = Math.min(share ?? trimTarget, trimTarget);
  if (share === undefined) return undefined;
  return { share, mustFit, ...(due.keepFrom === undefined ? {} : { keepFrom: due.keepFrom }) };
}

/** {@link trimShareOf} on a session's history, a warning on its events when no trim can help. */
export function trimShare(
  history: History,
  settings: TrimSettings,
  run: RunSoFar,
  events: SessionEvents,
): TrimShare | undefined {
  const { meter } = history;
  // Judged in the estimate's tokens, as the trim counts the messages (the same shares).
  const measure = { ...meter.planning, messages: history.messages };
  return trimShareOf(measure, settings, run, (ran) =>
    events.warnWindow({
      kind: "overhead_above_trigger",
      overheadTokens: meter.overhead,
      contextLimit: meter.contextLimit,
      message: `the system prompt and tools alone take ${meter.overhead} tokens, above the ${strategyOf(ran)} compactor's trigger in a window of ${meter.contextLimit}: compaction cannot bring the context under it`,
    }),
  );
}

/**
 * The last resort on `messages` by `share`: the oldest go down to its share of the window, less
 * `overhead`; what the still-due compactor keeps stays unless the request must fit. The notice
 * keeps what a summary would, without a summarizer: the user's words and the files. Pure;
 * `undefined` when nothing can go.
 */
export function lastResortTrim(
  messages: readonly Message[],
  share: TrimShare,
  measure: { contextLimit: number; overhead: number; clock?: Clock | undefined },
): TrimOutput | undefined {
  const { contextLimit, overhead } = measure;
  const budget = Math.floor(share.share * contextLimit) - overhead;
  const options = keepingTrimOptions(contextLimit, measure.clock);
  const keeping =
    share.mustFit || share.keepFrom === undefined
      ? options
      : { ...options, latestCut: share.keepFrom };
  return trimOldest(messages, budget, keeping);
}

/**
 * No compaction leaves the context above its trigger: when a change landed in this run, the
 * last compactor ran (a summarizer after masking takes over from its own threshold) and would
 * still be due, the share of the window the last resort trims down to (`below`: its target,
 * else `trimOnOverflow`'s, when the context is above it), and where what that compactor keeps
 * starts (`keepFrom`: the trim leaves it unless the request would not fit the window).
 * Nothing otherwise (a compactor that declined a rewrite not worth its cost is not overruled),
 * with `trimOnOverflow: false`, or when the system prompt and tools alone are above the
 * compactor's trigger (one not due on an empty context): no trim can help then
 * (`overheadAboveTrigger` is told).
 */
function stillDue(
  measure: TrimMeasure,
  settings: TrimSettings,
  run: RunSoFar,
  overheadAboveTrigger: ((ran: Compactor) => void) | undefined,
): { below?: number; keepFrom?: number } {
  const { ran, landed } = run;
  const { trimTarget, compactors } = settings;
  const { contextUsed, contextLimit, overhead } = measure;
  if (!landed || ran === undefined || trimTarget === undefined) return {};
  if (ran !== compactors.at(-1)) return {};
  if (!ran.shouldCompact(contextUsed, contextLimit)) return {};
  // A compactor due on an empty context (a custom one always due) has no trigger to be above.
  const triggered = !ran.shouldCompact(0, contextLimit);
  if (triggered && ran.shouldCompact(overhead, contextLimit)) {
    overheadAboveTrigger?.(ran);
    return {};
  }
  const share = compactorTarget(ran) ?? trimTarget;
  if (contextUsed <= share * contextLimit) return {};
  const keepFrom = ran.keeps?.(measure.messages, { contextLimit, contextUsed });
  return { below: share, ...(keepFrom === undefined ? {} : { keepFrom }) };
}
