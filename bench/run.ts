/**
 * `npm run bench`: the deterministic, offline benchmark. Part 1 runs simulated agent loops
 * with every strategy; part 2 times `compact` and `maybeCompact`. Prints tables and the
 * issue's targets with PASS/FAIL, and writes `bench/results.json`.
 *
 *   npm run bench                 everything (~2 minutes on 2 cores)
 *   npm run bench -- --quick      50 and 200 steps, 1k and 10k messages
 *   npm run bench -- --readme     also writes bench/README-section.md
 *   npm run bench -- --only=trajectories | --only=speed
 *   npm run bench -- --readme-only  rewrites bench/README-section.md from bench/results.json
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { renderTable } from "./format.js";
import { readmeSection } from "./readme.js";
import { speedTable, TRAJECTORY_HEADERS, targetLines, trajectoryRows } from "./report.js";
import { DEFAULT_SIMULATION_SETTINGS, PRICES, type RunMetrics, simulate } from "./simulate.js";
import { measureSpeed, type SpeedRow } from "./speed.js";
import { STRATEGIES } from "./strategies.js";
import { speedTargets, trajectoryTargets } from "./targets.js";
import { generateTrajectory, type Trajectory, type WorkloadShape } from "./workload.js";

const SEED = 20_260_101;
const SHAPES: readonly WorkloadShape[] = ["short-turns", "long-turn"];

const args = new Set(process.argv.slice(2));
const quick = args.has("--quick");
const only = [...args].find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
const stepCounts = quick ? [50, 200] : [50, 200, 500, 2000];
const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];

const print = (text = "") => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(text);

interface WorkloadSummary {
  shape: WorkloadShape;
  steps: number;
  seed: number;
  facts: number;
  observationShare: number;
  largestOutputTokens: number;
}

async function runTrajectories(): Promise<{ runs: RunMetrics[]; workloads: WorkloadSummary[] }> {
  const runs: RunMetrics[] = [];
  const workloads: WorkloadSummary[] = [];
  for (const shape of SHAPES) {
    for (const steps of stepCounts) {
      const trajectory: Trajectory = generateTrajectory({ steps, shape, seed: SEED });
      workloads.push({
        shape,
        steps,
        seed: trajectory.seed,
        facts: trajectory.facts.length,
        observationShare: trajectory.observationShare,
        largestOutputTokens: trajectory.largestOutputTokens,
      });
      progress(`${shape} ${steps} steps:`);
      for (const strategy of STRATEGIES) {
        runs.push(await simulate(trajectory, strategy));
        progress(` ${strategy.name}`);
      }
      progress("\n");
    }
  }
  return { runs, workloads };
}

async function main(): Promise<void> {
  const started = performance.now();
  const environment = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
  };
  print(
    `agent-compaction benchmark · ${environment.node} · ${environment.cpus} × ${environment.cpuModel}`,
  );

  let runs: RunMetrics[] = [];
  let workloads: WorkloadSummary[] = [];
  if (only === undefined || only === "trajectories") {
    ({ runs, workloads } = await runTrajectories());
    print();
    print(
      `Part 1 · trajectories · window ${DEFAULT_SIMULATION_SETTINGS.contextLimit.toLocaleString("en")} tokens, ` +
        `system+tools ${DEFAULT_SIMULATION_SETTINGS.systemTokens} tokens, seed ${SEED}, ` +
        `prices $${PRICES.inputPerMTok}/MTok in, cache read ${PRICES.cacheRead}x, write ${PRICES.cacheWrite}x`,
    );
    for (const strategy of STRATEGIES)
      print(`  ${strategy.name.padEnd(17)} ${strategy.description}`);
    for (const shape of SHAPES) {
      const ofShape = workloads.filter((workload) => workload.shape === shape);
      print();
      print(
        `${shape}: ${ofShape
          .map(
            (workload) =>
              `${workload.steps} steps ${workload.facts} facts, ${(workload.observationShare * 100).toFixed(0)}% tool output`,
          )
          .join(" · ")}`,
      );
      print(
        renderTable(TRAJECTORY_HEADERS, trajectoryRows(runs.filter((run) => run.shape === shape))),
      );
    }
  }

  let speed: SpeedRow[] = [];
  if (only === undefined || only === "speed") {
    progress("speed:");
    speed = await measureSpeed({
      sizes,
      samples: (messages) => (messages >= 100_000 ? 5 : messages >= 10_000 ? 15 : 41),
    });
    progress(" done\n");
    const table = speedTable(speed);
    print();
    print(
      "Part 2 · speed · medians; (Nx) = times the floor messages.map(m => ({ ...m, content: [...m.content] }))",
    );
    print(renderTable(table.headers, table.rows));
  }

  const targets = [...trajectoryTargets(runs), ...speedTargets(speed)];
  print();
  print("Targets");
  for (const line of targetLines(targets)) print(line);

  const results = {
    version: 1,
    seed: SEED,
    settings: DEFAULT_SIMULATION_SETTINGS,
    prices: PRICES,
    environment,
    strategies: STRATEGIES.map(({ name, description, origin }) => ({ name, description, origin })),
    workloads,
    trajectories: runs,
    speed,
    targets,
  };
  const resultsPath = fileURLToPath(new URL("./results.json", import.meta.url));
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  if (args.has("--readme")) {
    const readmePath = fileURLToPath(new URL("./README-section.md", import.meta.url));
    writeFileSync(readmePath, readmeSection({ runs, speed, targets, environment }));
  }
  print();
  print(`Wrote bench/results.json in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

if (args.has("--readme-only")) {
  const resultsPath = fileURLToPath(new URL("./results.json", import.meta.url));
  const saved = JSON.parse(readFileSync(resultsPath, "utf8")) as {
    trajectories: RunMetrics[];
    speed: SpeedRow[];
    targets: ReturnType<typeof trajectoryTargets>;
    environment: { node: string; cpus: number; cpuModel: string };
  };
  const readmePath = fileURLToPath(new URL("./README-section.md", import.meta.url));
  writeFileSync(
    readmePath,
    readmeSection({
      runs: saved.trajectories,
      speed: saved.speed,
      targets: saved.targets,
      environment: saved.environment,
    }),
  );
  print("Wrote bench/README-section.md from bench/results.json.");
} else {
  await main();
}
