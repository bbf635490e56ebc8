import type { DollarRun } from "./dollars.js";
import { PRICE_SETS } from "./dollars.js";
import type { TargetCheck } from "./targets.js";

/**
 * Tables of part 5: dollars at each price set beside trim-only (`×trim`), then the cache, the
 * summarizer's share and retention.
 */

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

function money(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(3);
}

/** `kept/planted` as a share, or `-` when nothing was planted. */
function kept(entry: { planted: number; kept: number } | undefined): string {
  return entry === undefined || entry.planted === 0 ? "-" : percent(entry.kept / entry.planted);
}

/** The dollars table of one workload: a row per strategy, a column per price set. */
export function dollarRows(runs: readonly DollarRun[]): { headers: string[]; rows: string[][] } {
  const trim = runs.find((run) => run.strategy === "trim");
  const headers = ["strategy", ...PRICE_SETS.map((set) => `${set.name} $ (×trim)`)];
  const rows = runs.map((run) => [
    run.strategy,
    ...PRICE_SETS.map(({ name }) => {
      const total = run.dollars[name]?.totalUsd ?? Number.NaN;
      const base = trim?.dollars[name]?.totalUsd ?? Number.NaN;
      if (!Number.isFinite(total)) return run.overWindow > 0 ? "does not fit" : "-";
      return `${money(total)} (${(total / base).toFixed(2)})`;
    }),
  ]);
  return { headers, rows };
}

/** Cache, summarizer and retention of one workload. */
export function dollarDetailRows(runs: readonly DollarRun[]): {
  headers: string[];
  rows: string[][];
} {
  const real = runs[0]?.source === "real";
  const headers = [
    "strategy",
    "requests over window",
    "compactions",
    "trims",
    "input read from cache",
    "summary requests",
    "summary input from cache",
    "summarizer share of $ (0.1x / 0.025x)",
    ...(real
      ? ["edited files in context", "paths in context"]
      : ["constraints in context", "paths in context"]),
  ];
  const flat = PRICE_SETS[0]!.name;
  const fable = PRICE_SETS.find((set) => set.name.startsWith("Fable"))!.name;
  const share = (run: DollarRun, name: string) => {
    const priced = run.dollars[name];
    if (priced === undefined || !Number.isFinite(priced.totalUsd) || priced.totalUsd === 0)
      return "-";
    return percent(priced.summarizerUsd / priced.totalUsd);
  };
  const rows = runs.map((run) => [
    run.strategy,
    String(run.overWindow),
    String(run.compactions),
    String(run.trims),
    percent(run.cacheReadShare),
    String(run.summarizerCalls),
    run.summarizerCalls === 0 ? "-" : percent(run.summarizerCacheReadShare),
    `${share(run, flat)} / ${share(run, fable)}`,
    ...(real
      ? [kept(run.retention.edited), kept(run.retention.path)]
      : [kept(run.retention.constraint), kept(run.retention.path)]),
  ]);
  return { headers, rows };
}

/** The real runs summed per strategy: dollars at each price set over the runs where all fit. */
export function realTotals(runs: readonly DollarRun[]): DollarRun[] {
  const strategies = [...new Set(runs.map((run) => run.strategy))];
  return strategies.map((strategy) => {
    const ofStrategy = runs.filter((run) => run.strategy === strategy);
    const dollars: DollarRun["dollars"] = {};
    for (const { name } of PRICE_SETS) {
      let totalUsd = 0;
      let summarizerUsd = 0;
      for (const run of ofStrategy) {
        totalUsd += run.dollars[name]?.totalUsd ?? Number.NaN;
        summarizerUsd += run.dollars[name]?.summarizerUsd ?? Number.NaN;
      }
      dollars[name] = { totalUsd, summarizerUsd };
    }
    const sum = (pick: (run: DollarRun) => number) =>
      ofStrategy.reduce((total, run) => total + pick(run), 0);
    const retention: DollarRun["retention"] = {};
    for (const kind of ["edited", "path"]) {
      retention[kind] = {
        planted: sum((run) => run.retention[kind]?.planted ?? 0),
        kept: sum((run) => run.retention[kind]?.kept ?? 0),
      };
    }
    const tokens = {
      input: sum((run) => run.tokens.input),
      cacheRead: sum((run) => run.tokens.cacheRead),
      summarizerInput: sum((run) => run.tokens.summarizerInput),
      summarizerCacheRead: sum((run) => run.tokens.summarizerCacheRead),
    };
    return {
      source: "real",
      workload: "all runs",
      strategy,
      requests: sum((run) => run.requests),
      overWindow: sum((run) => run.overWindow),
      compactions: sum((run) => run.compactions),
      trims: sum((run) => run.trims),
      summarizerCalls: sum((run) => run.summarizerCalls),
      tokens,
      cacheReadShare: tokens.input === 0 ? 0 : tokens.cacheRead / tokens.input,
      summarizerCacheReadShare:
        tokens.summarizerInput === 0 ? 0 : tokens.summarizerCacheRead / tokens.summarizerInput,
      dollars,
      retention,
    };
  });
}

/** The price sets the targets name: cache reads at 0.1x and at 0.025x. */
const TARGET_SETS = ["0.1x flat ($3/$15)", "Fable 5.1 (0.025x)"];
/** At most this share of trim-only's dollars. */
const TRIM_SHARE = 0.8;
/** A warm summary request reads at least this share of its input from the cache. */
const SUMMARY_CACHE_SHARE = 0.9;

/** The dollar targets, read from the simulated runs. */
export function dollarTargets(runs: readonly DollarRun[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const workload of [...new Set(runs.map((run) => run.workload))]) {
    const ofWorkload = runs.filter((run) => run.workload === workload);
    const trim = ofWorkload.find((run) => run.strategy === "trim");
    if (trim === undefined) continue;
    for (const set of TARGET_SETS) {
      const ratio = (run: DollarRun) =>
        (run.dollars[set]?.totalUsd ?? Number.NaN) / (trim.dollars[set]?.totalUsd ?? Number.NaN);
      const fallback = ofWorkload.find((run) => run.strategy === "default");
      const summarizing = ofWorkload
        .filter((run) => run.summarizerCalls > 0)
        .sort((a, b) => ratio(a) - ratio(b))[0];
      for (const [label, run] of [
        ["the default session", fallback],
        ["the best summarizing setup", summarizing],
      ] as const) {
        if (run === undefined) continue;
        checks.push({
          target: `${workload} at ${set}: ${label} costs at most ${TRIM_SHARE}x trim-only`,
          measured: `${run.strategy} ${ratio(run).toFixed(2)}x`,
          pass: ratio(run) <= TRIM_SHARE,
        });
      }
    }
    for (const run of ofWorkload.filter((candidate) => candidate.strategy.includes("cached"))) {
      if (run.summarizerCalls === 0) continue;
      checks.push({
        target: `${workload}: ${run.strategy}'s summary requests read at least ${percent(SUMMARY_CACHE_SHARE)} of their input from cache`,
        measured: percent(run.summarizerCacheReadShare),
        pass: run.summarizerCacheReadShare >= SUMMARY_CACHE_SHARE,
      });
    }
  }
  return checks;
}
