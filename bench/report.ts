import { formatMs, formatPercent, formatTokens } from "./format.js";
import type { RunMetrics } from "./simulate.js";
import type { SpeedRow, Timing } from "./speed.js";
import type { TargetCheck } from "./targets.js";

/** Headers of the trajectory table. */
export const TRAJECTORY_HEADERS = [
  "steps",
  "strategy",
  "billed input",
  "vs none",
  "summariser",
  "peak",
  "over window",
  "compactions",
  "trims",
  "cache hit",
  "rewrites",
  "cost $",
  "facts kept",
  "kept or handed",
  "recoverable",
  "shown to summariser",
  "archive",
] as const;

/** One table row per run; `vs none` compares with the `none` run of the same workload. */
export function trajectoryRows(runs: readonly RunMetrics[]): string[][] {
  return runs.map((run) => {
    const baseline = runs.find(
      (other) =>
        other.strategy === "none" && other.shape === run.shape && other.steps === run.steps,
    );
    const versus =
      baseline === undefined || run === baseline
        ? "-"
        : `${((run.billedInputTokens / baseline.billedInputTokens - 1) * 100).toFixed(1)}%`;
    return [
      String(run.steps),
      run.strategy,
      formatTokens(run.billedInputTokens),
      versus,
      run.summariserCalls === 0 ? "-" : formatPercent(run.summariserShare),
      formatTokens(run.peakContext),
      String(run.requestsOverWindow),
      String(run.compactions),
      String(run.trims),
      formatPercent(run.cacheHitRatio),
      String(run.prefixBreaks),
      run.costUsd.toFixed(2),
      formatPercent(run.facts === 0 ? 1 : run.factsKept / run.facts),
      formatPercent(run.facts === 0 ? 1 : run.factsKeptOrHanded / run.facts),
      formatPercent(run.facts === 0 ? 1 : run.factsRecoverable / run.facts),
      formatPercent(run.facts === 0 ? 0 : run.factsShownToSummariser / run.facts),
      `${(run.archiveChars / 1024).toFixed(0)} KB`,
    ];
  });
}

/** Headers and rows of the speed table; compact timings show their ratio to the floor. */
export function speedTable(rows: readonly SpeedRow[]): { headers: string[]; rows: string[][] } {
  const compactors = [...new Set(rows.flatMap((row) => Object.keys(row.compact)))];
  const steps = [...new Set(rows.flatMap((row) => Object.keys(row.step ?? {})))];
  const headers = [
    "messages",
    "floor (copy)",
    ...compactors.map((name) => `compact ${name}`),
    "maybeCompact under",
    "maybeCompact over",
    ...steps.map((name) => `step ${name}`),
    "heap/message",
    "session/message",
  ];
  const overFloor = (row: SpeedRow, timing: Timing | undefined) =>
    timing === undefined
      ? "-"
      : `${formatMs(timing.medianMs)} (${(timing.medianMs / row.floor.medianMs).toFixed(1)}x)`;
  return {
    headers,
    rows: rows.map((row) => [
      String(row.messages),
      formatMs(row.floor.medianMs),
      ...compactors.map((name) => overFloor(row, row.compact[name])),
      formatMs(row.maybeCompactUnder.medianMs),
      formatMs(row.maybeCompactOver.medianMs),
      ...steps.map((name) => overFloor(row, row.step?.[name])),
      row.bytesPerMessage === undefined ? "-" : `${row.bytesPerMessage.conversation} B`,
      row.bytesPerMessage === undefined ? "-" : `${row.bytesPerMessage.session} B`,
    ]),
  };
}

/** Target lines with PASS/FAIL in front. */
export function targetLines(checks: readonly TargetCheck[]): string[] {
  return checks.map(
    (check) => `${check.pass ? "PASS" : "FAIL"}  ${check.target}: ${check.measured}`,
  );
}

/** A labelled block of target lines; nothing when there are none. */
function targetBlock(label: string, checks: readonly TargetCheck[]): string[] {
  if (checks.length === 0) return [];
  return [label, "", "```", ...targetLines(checks), "```", ""];
}

/** bench/README.md's targets: the real runs' first, then the synthetic runs' and the timings'. */
export function targetSection(checks: readonly TargetCheck[]): string[] {
  const real = checks.filter((check) => check.target.startsWith("real runs"));
  const others = checks.filter((check) => !check.target.startsWith("real runs"));
  return [
    "## Targets",
    "",
    "The issues' targets, checked against these numbers.",
    "",
    ...targetBlock("On the real runs:", real),
    ...targetBlock(
      "The others: synthetic (simulated) runs, timings, and part 5's recorded-run retention:",
      others,
    ),
  ];
}
