import { type Compactor, compactorTarget } from "../core/compactor.js";
import type { History } from "./history.js";
import type { SessionEvents } from "./session-events.js";
import { strategyOf } from "./strategy.js";
import { TRIM_AT } from "./trim-stage.js";

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

/**
 * Whether the last stage of a run trims, and down to what share of the window: when the context
 * is still above {@link TRIM_AT} of the window, down to `trimTarget` (`trimOnOverflow`'s); when
 * the compactor that just ran is still due (see {@link stillDue}), down to the share it aims at
 * (above {@link TRIM_AT}, the lower of the two). `undefined`: no trim.
 */
export function trimShare(
  history: History,
  settings: { compactors: readonly Compactor[]; trimTarget: number | undefined },
  run: RunSoFar,
  events: SessionEvents,
): TrimShare | undefined {
  const { contextUsed, contextLimit } = history.meter;
  const due = run.failed ? {} : stillDue(history, settings, run, events);
  let share = due.below;
  const mustFit = contextUsed > TRIM_AT * contextLimit;
  const { trimTarget } = settings;
  if (mustFit && trimTarget !== undefined) share = Math.min(share ?? trimTarget, trimTarget);
  if (share === undefined) return undefined;
  return { share, mustFit, ...(due.keepFrom === undefined ? {} : { keepFrom: due.keepFrom }) };
}

/**
 * No compaction leaves the context above its trigger: when a change landed in this run, the
 * last compactor ran (a summarizer after masking takes over from its own threshold) and would
 * still be due, the share of the window the last resort trims down to (`below`: its target,
 * else `trimOnOverflow`'s, when the context is above it), and where what that compactor keeps
 * starts (`keepFrom`: the trim leaves it unless the request would not fit the window).
 * Nothing otherwise (a compactor that declined a rewrite not worth its cost is not overruled),
 * with `trimOnOverflow: false`, or when the system prompt and tools alone are above the
 * compactor's trigger (one not due on an empty context): no trim can help then, and the
 * session is warned once.
 */
function stillDue(
  history: History,
  settings: { compactors: readonly Compactor[]; trimTarget: number | undefined },
  run: RunSoFar,
  events: SessionEvents,
): { below?: number; keepFrom?: number } {
  const { ran, landed } = run;
  const { trimTarget, compactors } = settings;
  const { contextUsed, contextLimit } = history.meter;
  if (!landed || ran === undefined || trimTarget === undefined) return {};
  if (ran !== compactors.at(-1)) return {};
  if (!ran.shouldCompact(contextUsed, contextLimit)) return {};
  const overhead = Math.max(0, contextUsed - history.meter.estimate);
  // A compactor due on an empty context (a custom one always due) has no trigger to be above.
  const triggered = !ran.shouldCompact(0, contextLimit);
  if (triggered && ran.shouldCompact(overhead, contextLimit)) {
    events.warnWindow({
      kind: "overhead_above_trigger",
      overheadTokens: overhead,
      contextLimit,
      message: `the system prompt and tools alone take ${overhead} tokens, above the ${strategyOf(ran)} compactor's trigger in a window of ${contextLimit}: compaction cannot bring the context under it`,
    });
    return {};
  }
  const share = compactorTarget(ran) ?? trimTarget;
  if (contextUsed <= share * contextLimit) return {};
  const keepFrom = ran.keeps?.(history.messages, { contextLimit, contextUsed });
  return { below: share, ...(keepFrom === undefined ? {} : { keepFrom }) };
}
