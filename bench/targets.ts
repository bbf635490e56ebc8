import { type FloorRow, type Growth, growth } from "./floors.js";
import type { PeerRow } from "./peers.js";
import type { RunMetrics } from "./simulate.js";
import type { SpeedRow } from "./speed.js";

/** One target of the issue, read from the numbers. */
export interface TargetCheck {
  target: string;
  /** What was measured, in words. */
  measured: string;
  pass: boolean;
}

/** The compactor whose `compact` the speed targets are about. */
export const SPEED_TARGET_COMPACTOR = "summarize";

const COST_STEPS = 500;
const COST_CUT = 0.85;
const SUMMARISER_SHARE = 0.07;
const FLOOR_FACTOR = 3;
/** Linear: the per-message time at 100k is at most this many times the one at 10k. */
export const LINEAR_SLACK = 1.5;
/**
 * Linear beside a floor: from 10k to 100k ours grows at most this many times as much as a
 * floor doing part of its work (the floor's growth is the machine's: caches, collector).
 */
export const FLOOR_SLACK = 1.5;
/** Independent of history length: 100k messages cost at most this many times 1k. */
const FLAT_SLACK = 2;

function cut(run: RunMetrics, baseline: RunMetrics | undefined): number {
  return baseline === undefined ? 0 : 1 - run.billedInputTokens / baseline.billedInputTokens;
}

/** Checks the trajectory targets, one line per strategy and workload. */
export function trajectoryTargets(runs: readonly RunMetrics[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const baselineOf = (run: RunMetrics) =>
    runs.find((r) => r.strategy === "none" && r.shape === run.shape && r.steps === run.steps);

  for (const run of runs.filter((r) => r.steps === COST_STEPS && r.strategy !== "none")) {
    const reduction = cut(run, baselineOf(run));
    checks.push({
      target: `${run.shape} ${COST_STEPS} steps, ${run.strategy}: billed ≥${Math.round(COST_CUT * 100)}% below none, 0 over the window`,
      measured: `${(reduction * 100).toFixed(1)}% below, ${run.requestsOverWindow} over`,
      pass: reduction >= COST_CUT && run.requestsOverWindow === 0,
    });
  }

  const strategies = [...new Set(runs.map((run) => run.strategy))].filter(
    (name) => name !== "none",
  );
  for (const strategy of strategies) {
    const own = runs.filter((run) => run.strategy === strategy);
    const over = own.reduce((total, run) => total + run.requestsOverWindow, 0);
    const failing = own.filter((run) => run.requestsOverWindow > 0);
    checks.push({
      target: `${strategy}: 0 requests over the window in every run`,
      measured:
        over === 0
          ? "0 over"
          : `${over} over (${failing.map((run) => `${run.shape} ${run.steps}`).join(", ")})`,
      pass: over === 0,
    });
    const summarised = own.filter((run) => run.summariserCalls > 0);
    if (summarised.length > 0) {
      const worst = summarised.reduce((a, b) => (b.summariserShare > a.summariserShare ? b : a));
      checks.push({
        target: `${strategy}: summariser tokens ≤${Math.round(SUMMARISER_SHARE * 100)}% of billed`,
        measured: `max ${(worst.summariserShare * 100).toFixed(2)}% (${worst.shape} ${worst.steps})`,
        pass: worst.summariserShare <= SUMMARISER_SHARE,
      });
    }
  }
  return checks;
}

/** Checks the speed targets. */
export function speedTargets(rows: readonly SpeedRow[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const at = (messages: number) => rows.find((row) => row.messages === messages);
  const small = at(1000);
  const medium = at(10_000);
  const large = at(100_000);
  const compactOf = (row: SpeedRow | undefined) => row?.compact[SPEED_TARGET_COMPACTOR]?.medianMs;

  const medium10k = compactOf(medium);
  if (medium !== undefined && medium10k !== undefined) {
    const ratio = medium10k / medium.floor.medianMs;
    checks.push({
      target: `ThresholdCompactor (${SPEED_TARGET_COMPACTOR}).compact on 10k messages ≤${FLOOR_FACTOR}x the floor`,
      measured: `${ratio.toFixed(2)}x (${medium10k.toFixed(2)} ms vs ${medium.floor.medianMs.toFixed(2)} ms)`,
      pass: ratio <= FLOOR_FACTOR,
    });
  }
  const large100k = compactOf(large);
  if (medium10k !== undefined && large100k !== undefined) {
    const ratio = large100k / medium10k;
    checks.push({
      target: `ThresholdCompactor (${SPEED_TARGET_COMPACTOR}).compact linear from 10k to 100k (time ratio ≤${10 * LINEAR_SLACK})`,
      measured: `${ratio.toFixed(1)}x for 10x the messages`,
      pass: ratio <= 10 * LINEAR_SLACK,
    });
  }
  if (small !== undefined && large !== undefined) {
    const ratio = large.maybeCompactUnder.medianMs / small.maybeCompactUnder.medianMs;
    checks.push({
      target: `maybeCompact under the threshold independent of history (100k vs 1k ≤${FLAT_SLACK}x)`,
      measured: `${ratio.toFixed(2)}x (${(small.maybeCompactUnder.medianMs * 1000).toFixed(1)} µs vs ${(large.maybeCompactUnder.medianMs * 1000).toFixed(1)} µs)`,
      pass: ratio <= FLAT_SLACK,
    });
  }
  return checks;
}

/** At most this fraction of `pruneMessages`' time on 10k messages (issue 9, "Speed"). */
const PRUNE_FACTOR = 0.5;

/** Checks the peer targets: ours against `pruneMessages` at 10k, and linear to 100k. */
export function peerTargets(
  rows: readonly PeerRow[],
  floors?: readonly FloorRow[] | undefined,
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const medium = rows.find((row) => row.messages === 10_000);
  if (medium !== undefined) {
    const ratio = medium.ours.medianMs / medium.pruneMessages.medianMs;
    const spread =
      medium.processRatios === undefined
        ? ""
        : `, median of ${medium.processRatios.length} processes: ${medium.processRatios.map((value) => value.toFixed(2)).join(", ")}`;
    checks.push({
      target: `ThresholdCompactor (redact).compact on 10k messages ≤${PRUNE_FACTOR}x pruneMessages, side by side`,
      measured: `${ratio.toFixed(2)}x (${medium.ours.medianMs.toFixed(2)} ms vs ${medium.pruneMessages.medianMs.toFixed(2)} ms${spread})`,
      pass: ratio <= PRUNE_FACTOR,
    });
  }
  const large = rows.find((row) => row.messages === 100_000);
  if (medium === undefined || large === undefined) return checks;
  const grown = growth(rows, floors);
  const linear = (what: string, floor: string, pick: (g: Growth) => [number, number, number]) => {
    const target = `ThresholdCompactor (redact).compact linear from 10k to 100k: ${what} grows at most ${FLOOR_SLACK}x as much as the ${floor} floor, side by side`;
    if (grown === undefined) {
      checks.push({ target, measured: "not measured (no floors at 10k and 100k)", pass: false });
      return;
    }
    const [relative, ours, theirs] = pick(grown);
    checks.push({
      target,
      measured:
        `${relative.toFixed(2)}x as much (${ours.toFixed(1)}x vs ${theirs.toFixed(1)}x); ` +
        `raw: ours ${grown.ours.toFixed(1)}x beside pruneMessages' ${grown.pruneMessages.toFixed(1)}x`,
      pass: relative <= FLOOR_SLACK,
    });
  };
  linear(
    "its pass over the messages (on its own output: every decision, nothing to copy)",
    "read",
    (g) => [g.againOverRead, g.oursAgain, g.readFloor],
  );
  linear("the job", "copy", (g) => [g.jobOverCopy, g.oursBesideCopy, g.copyFloor]);
  return checks;
}
