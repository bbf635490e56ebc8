import type { DollarRun } from "./dollars-billing.js";
import type { TargetCheck } from "./targets.js";

/** Issue 23's retention targets: the user's constraints, and the paths, at each run length. */
const CONSTRAINTS_KEPT = 0.99;
/** Paths kept at up to 500 steps, and beyond. */
const PATHS_KEPT_SHORT = 0.9;
const PATHS_KEPT_LONG = 0.8;
/** On every recorded run: every edited file, and this share of the touched paths. */
const REAL_PATHS_KEPT = 0.95;

const share = (entry: { planted: number; kept: number } | undefined) =>
  entry === undefined || entry.planted === 0 ? 1 : entry.kept / entry.planted;
const percent = (value: number) => `${Math.round(value * 100)}%`;
const stepsOf = (run: DollarRun) => Number(run.workload.split(" ").at(-1));

/** The paths a simulated run of this length must keep. */
function pathsTarget(run: DollarRun): number {
  return stepsOf(run) <= 500 ? PATHS_KEPT_SHORT : PATHS_KEPT_LONG;
}

/** Whether a run keeps what the issue asks: constraints and paths (simulated), edits and paths (recorded). */
export function keepsEnough(run: DollarRun): boolean {
  if (run.source === "real") {
    return share(run.retention["edited"]) >= 1 && share(run.retention["path"]) >= REAL_PATHS_KEPT;
  }
  return (
    share(run.retention["constraint"]) >= CONSTRAINTS_KEPT &&
    share(run.retention["path"]) >= pathsTarget(run)
  );
}

/** The retention lines of the targets, for the runs `labelled` names (the default, the best summarizing setup). */
export function retentionTargets(labelled: readonly [string, DollarRun][]): TargetCheck[] {
  return labelled.map(([label, run]) => {
    if (run.source === "real") {
      return {
        target: `${run.workload}: ${label} keeps every edited file and at least ${percent(REAL_PATHS_KEPT)} of the touched paths`,
        measured: `${run.strategy}: ${percent(share(run.retention["edited"]))} edited, ${percent(share(run.retention["path"]))} paths`,
        pass: keepsEnough(run),
      };
    }
    return {
      target: `${run.workload}: ${label} keeps at least ${percent(CONSTRAINTS_KEPT)} of the user's constraints and ${percent(pathsTarget(run))} of the paths`,
      measured: `${run.strategy}: ${percent(share(run.retention["constraint"]))} constraints, ${percent(share(run.retention["path"]))} paths`,
      pass: keepsEnough(run),
    };
  });
}
