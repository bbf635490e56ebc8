/**
 * Retention (issue 23, part 4): what a session still holds of the user's constraints and of the
 * file paths after long runs. Simulated runs report the planted constraints and paths found in
 * the final request; real runs (`--trajectories DIR`) report the files the agent edited and the
 * paths it touched (both read from tool inputs by the file ledger's own rules) that the final
 * request still names.
 *
 *   npx tsx bench/retention.ts [--steps 500,2000] [--shapes short-turns,long-turn]
 *                              [--strategies default,llm,...] [--trajectories DIR] [--window N]
 */
import { replayRetention } from "./retention-replay.js";
import { simulate } from "./simulate.js";
import { STRATEGIES } from "./strategies.js";
import { generateTrajectory, type WorkloadShape } from "./workload.js";

const SEED = 20_260_101;
const argv = process.argv.slice(2);
function option(name: string): string | undefined {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
}
const list = (value: string | undefined, fallback: string) => (value ?? fallback).split(",");
const percent = (kept: number, total: number) =>
  total === 0 ? "-" : `${((kept / total) * 100).toFixed(1)}%`;
const print = (text: string) => process.stdout.write(`${text}\n`);

async function simulated(): Promise<void> {
  const steps = list(option("--steps"), "500,2000").map(Number);
  const shapes = list(option("--shapes"), "short-turns") as WorkloadShape[];
  const names = list(option("--strategies"), "default,llm,mask+llm,llm→50%,hybrid");
  print(
    "| run | strategy | constraints kept | paths kept | trims | compactions | billed input | cost $ |",
  );
  print("|---|---|---:|---:|---:|---:|---:|---:|");
  for (const shape of shapes) {
    for (const count of steps) {
      const trajectory = generateTrajectory({ steps: count, shape, seed: SEED });
      for (const strategy of STRATEGIES.filter((each) => names.includes(each.name))) {
        const run = await simulate(trajectory, strategy);
        const { constraint, path } = run.factsKeptByKind;
        print(
          `| ${shape} ${count} | ${strategy.name} | ${constraint.kept}/${constraint.planted} ` +
            `${percent(constraint.kept, constraint.planted)} | ${path.kept}/${path.planted} ` +
            `${percent(path.kept, path.planted)} | ${run.trims} | ${run.compactions} | ` +
            `${(run.billedInputTokens / 1e6).toFixed(2)}M | ${run.costUsd.toFixed(2)} |`,
        );
      }
    }
  }
}

async function real(directory: string): Promise<void> {
  const { readdirSync } = await import("node:fs");
  const window = Number(option("--window") ?? 64_000);
  const names = list(option("--strategies"), "default,hybrid,llm");
  print(`Real runs, ${window}-token window`);
  print("| run | strategy | edited files kept | touched paths kept |");
  print("|---|---|---:|---:|");
  for (const name of readdirSync(directory)
    .filter((each) => each.endsWith(".json"))
    .sort())
    for (const strategy of names) {
      const kept = await replayRetention(`${directory}/${name}`, strategy, window);
      print(
        `| ${kept.file} | ${strategy} | ${kept.editedKept}/${kept.edited} ${percent(kept.editedKept, kept.edited)} ` +
          `| ${kept.touchedKept}/${kept.touched} ${percent(kept.touchedKept, kept.touched)} |`,
      );
    }
}

const directory = option("--trajectories");
if (directory === undefined) await simulated();
else await real(directory);
