import { DOLLAR_STRATEGIES, type DollarStrategy, simulateDollars } from "./dollars.js";
import { type DollarRun, PRICE_SETS } from "./dollars-billing.js";
import { replayDollars } from "./dollars-replay.js";
import { dollarDetailRows, dollarRows, realTotals } from "./dollars-report.js";
import { renderTable } from "./format.js";
import { runsIn } from "./replay.js";
import { DEFAULT_SIMULATION_SETTINGS } from "./simulate.js";
import { generateTrajectory } from "./workload.js";

/** Part 5 in `results.json`. */
export interface DollarResults {
  settings: typeof DEFAULT_SIMULATION_SETTINGS;
  seed: number;
  priceSets: typeof PRICE_SETS;
  strategies: { name: string; description: string }[];
  simulated: DollarRun[];
  /** Recorded runs, when `--trajectories` was given, with the window they were replayed in. */
  real?: { directory: string; window: number; runs: DollarRun[] };
}

/** What {@link runDollars} needs from the runner. */
export interface DollarPartOptions {
  /** 50 and 200 steps instead of 500 and 2,000. */
  quick: boolean;
  seed: number;
  /** The last results, whose recorded runs are kept when none are replayed now. */
  saved: DollarResults | undefined;
  /** Recorded runs to replay (`--trajectories`, `--window`). */
  recorded?: { directory: string; window: number };
  print: (text?: string) => void;
  progress: (text: string) => void;
}

/**
 * One strategy's run; a priced one runs once per price set, told that set's prices, and each
 * column comes from its own run (the counts and retention from the first set's).
 */
async function pricedRun(
  strategy: DollarStrategy,
  run: (strategy: DollarStrategy) => Promise<DollarRun>,
): Promise<DollarRun> {
  if (strategy.priced !== true) return run(strategy);
  const runs: DollarRun[] = [];
  for (const { pricing } of PRICE_SETS) {
    runs.push(
      await run({ ...strategy, options: (context) => ({ ...strategy.options(context), pricing }) }),
    );
  }
  const dollars = Object.fromEntries(
    PRICE_SETS.map(({ name }, index) => [name, runs[index]!.dollars[name]!]),
  );
  return { ...runs[0]!, dollars };
}

/** Part 5: dollars at cache prices, simulated (and recorded runs with `--trajectories`). */
export async function runDollars(options: DollarPartOptions): Promise<DollarResults> {
  const { print, progress } = options;
  const tables = (title: string, runs: readonly DollarRun[]) => {
    print();
    print(title);
    const money = dollarRows(runs);
    print(renderTable(money.headers, money.rows));
    const detail = dollarDetailRows(runs);
    print(renderTable(detail.headers, detail.rows));
  };
  const simulated: DollarRun[] = [];
  for (const steps of options.quick ? [50, 200] : [500, 2000]) {
    const trajectory = generateTrajectory({ steps, shape: "short-turns", seed: options.seed });
    progress(`dollars ${steps} steps:`);
    for (const strategy of DOLLAR_STRATEGIES) {
      simulated.push(await pricedRun(strategy, (each) => simulateDollars(trajectory, each)));
      progress(` ${strategy.name}`);
    }
    progress("\n");
  }
  print();
  print(
    `Part 5 · dollars · window ${DEFAULT_SIMULATION_SETTINGS.contextLimit.toLocaleString("en")} tokens, seed ${options.seed}, ` +
      "every request billed against a prefix cache (reads: the longest prefix byte-identical to the previous request; writes: the rest, 5-minute); the agent's own output left out",
  );
  for (const strategy of DOLLAR_STRATEGIES) {
    print(`  ${strategy.name.padEnd(26)} ${strategy.description}`);
  }
  for (const workload of [...new Set(simulated.map((run) => run.workload))]) {
    tables(
      `simulated ${workload} steps`,
      simulated.filter((run) => run.workload === workload),
    );
  }
  let real = options.saved?.real;
  if (options.recorded !== undefined) {
    const { directory, window } = options.recorded;
    const runs: DollarRun[] = [];
    progress("dollars, recorded runs:");
    for (const file of runsIn(directory)) {
      for (const strategy of DOLLAR_STRATEGIES) {
        runs.push(await pricedRun(strategy, (each) => replayDollars(file, each, window)));
      }
      progress(".");
    }
    progress("\n");
    real = { directory, window, runs };
  }
  if (real !== undefined) {
    for (const workload of [...new Set(real.runs.map((run) => run.workload))]) {
      tables(
        `recorded ${workload}, ${real.window.toLocaleString("en")}-token window`,
        real.runs.filter((run) => run.workload === workload),
      );
    }
    tables(
      `recorded runs, all ${new Set(real.runs.map((run) => run.workload)).size} together (none: only if every run fits)`,
      realTotals(real.runs),
    );
  }
  return {
    settings: DEFAULT_SIMULATION_SETTINGS,
    seed: options.seed,
    priceSets: PRICE_SETS,
    strategies: DOLLAR_STRATEGIES.map(({ name, description }) => ({ name, description })),
    simulated,
    ...(real === undefined ? {} : { real }),
  };
}
