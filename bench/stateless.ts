/**
 * Part 6 of `npm run bench` (issue 31, "Speed"): the library's calls beside the AI SDK's
 * `pruneMessages` doing the same job, side by side in one process, on part 3's conversation:
 *
 * - first sight: a conversation the library has never seen, as a server that gets the whole
 *   history with each request sees it, through the core API (`ThresholdCompactor.compact` on a
 *   deep copy) and through each adapter's stateless path (`bench/stateless-contenders.ts`);
 * - warm: `compact` on an array it has seen (the same array each run).
 *
 * Method, for a machine shared with other work: each contender and `pruneMessages` run in
 * alternating rounds (the contender first on even rounds, `pruneMessages` first on odd ones).
 * Each round makes both inputs first, untimed: new deep copies for first sight (`pruneMessages`
 * gets a deep copy of its own too), the same arrays for warm; then two young-generation
 * collections, untimed, move the copies out of the young generation, so that neither call pays
 * for moving them (the copy's own cost, which the issue leaves out). Each run is timed by the
 * process's CPU time (`process.cpuUsage()`, which time spent waiting for a core does not
 * inflate) and the wall clock. The ratio is the contender's time over `pruneMessages`' in the
 * same round; a row gives the median of those per-round ratios. Each contender and size runs
 * in three fresh processes one after the other (the load of a shared machine moves between
 * them more than within one); the row is the process with the median per-round CPU ratio,
 * every process's ratio kept beside it. The targets are judged on that ratio at 10k messages.
 *
 * Run alone: `npx tsx bench/stateless.ts [--sizes 1000,10000] [--contenders core,warm]
 * [--rounds 101] [--processes 3]`.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { PeerTiming } from "./peers.js";
import { gc, median } from "./speed.js";
import {
  CONTENDERS,
  type ContenderName,
  contender,
  isWarm,
  pruneContender,
  statelessWorkload,
} from "./stateless-contenders.js";

import { statelessReport } from "./stateless-report.js";

export { statelessReadme, statelessReport, statelessTargets } from "./stateless-report.js";

/** Per-round ratios (contender / pruneMessages, same round): their median and extremes. */
export interface RoundRatios {
  median: number;
  min: number;
  max: number;
}

/** One clock's view of a row: each one's timing and the ratios. */
export interface StatelessClock {
  ours: PeerTiming;
  pruneMessages: PeerTiming;
  /** ours / pruneMessages, medians. */
  ratioOfMedians: number;
  /** ours / pruneMessages, fastest runs. */
  ratioOfMinimums: number;
  rounds: RoundRatios;
}

/** One contender's timing at one size. */
export interface StatelessRow {
  /** What was timed; absent in older results, which timed only the AI SDK's path. */
  contender?: ContenderName;
  messages: number;
  /** Wall clock (as `ratio`). */
  ours: PeerTiming;
  pruneMessages: PeerTiming;
  /** ours / pruneMessages (wall-clock medians). */
  ratio: number;
  /** Both clocks in full; the targets read `cpu.rounds.median`. */
  wall: StatelessClock;
  cpu: StatelessClock;
  /** Tool results still full after each: the same job. */
  fullResults: { ours: number; pruneMessages: number };
  /** Each process's median per-round ratio (CPU, then wall), the row's among them. */
  processes?: { cpu: number; wall: number }[];
}

/** Rounds per size: timed rounds, and warm-up rounds (at least a second of them). */
export const statelessRounds = (size: number): { warmUps: number; timed: number } =>
  size >= 100_000
    ? { warmUps: 3, timed: 15 }
    : size >= 10_000
      ? { warmUps: 20, timed: 101 }
      : { warmUps: 100, timed: 201 };

const MIN_WARM_UP_MS = 1000;

/** Default of {@link measureStateless}'s `processes`. */
export const STATELESS_PROCESSES = 3;

const ROW_MARKER = "stateless-row:";

type Rounds = (size: number) => { warmUps: number; timed: number };

/** How {@link measureStateless} runs. */
export interface StatelessOptions {
  sizes: readonly number[];
  contenders?: readonly ContenderName[];
  rounds?: Rounds;
  processes?: number;
  /** Told of each row as it starts. */
  progress?: (text: string) => void;
}

/**
 * Times each contender beside `pruneMessages` at each size in `processes` fresh processes, one
 * after the other, and keeps the process with the median per-round CPU ratio (see the module's
 * TSDoc).
 */
export function measureStateless(options: StatelessOptions): StatelessRow[] {
  const { sizes, rounds = statelessRounds, processes = STATELESS_PROCESSES } = options;
  const rows: StatelessRow[] = [];
  for (const name of options.contenders ?? CONTENDERS) {
    for (const size of sizes) {
      options.progress?.(` ${name}@${size}`);
      const measured: StatelessRow[] = [];
      for (let run = 0; run < processes; run += 1)
        measured.push(rowInChild(name, size, rounds(size)));
      measured.sort((a, b) => a.cpu.rounds.median - b.cpu.rounds.median);
      const row = measured[Math.floor((measured.length - 1) / 2)]!;
      const ratios = measured.map((each) => ({
        cpu: each.cpu.rounds.median,
        wall: each.wall.rounds.median,
      }));
      rows.push({ ...row, processes: ratios });
    }
  }
  return rows;
}

/** This script again, for one contender and size (`--row`), in a process of its own. */
function rowInChild(
  name: ContenderName,
  size: number,
  rounds: { warmUps: number; timed: number },
): StatelessRow {
  const child = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      "--row",
      `${name}@${size}`,
      "--warm-ups",
      String(rounds.warmUps),
      "--rounds",
      String(rounds.timed),
    ],
    { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
  );
  const line = child.stdout?.split("\n").find((each) => each.startsWith(ROW_MARKER));
  if (child.status !== 0 || line === undefined)
    throw new Error(
      `the stateless part (${name} at ${size} messages) failed (exit ${child.status})`,
    );
  return JSON.parse(line.slice(ROW_MARKER.length)) as StatelessRow;
}

/** One contender's samples on both clocks, in milliseconds, one per round. */
interface Samples {
  wall: number[];
  cpu: number[];
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function timed(run: () => unknown, into: Samples | undefined): Promise<unknown> {
  const cpu = cpuMs();
  const wall = performance.now();
  const output = await run();
  const wallElapsed = performance.now() - wall;
  const cpuElapsed = cpuMs() - cpu;
  into?.wall.push(wallElapsed);
  into?.cpu.push(cpuElapsed);
  return output;
}

function clock(ours: readonly number[], prune: readonly number[]): StatelessClock {
  const timing = (values: readonly number[]): PeerTiming => ({
    medianMs: median(values),
    minMs: Math.min(...values),
    samples: values.length,
  });
  const perRound = ours.map((value, index) => value / Math.max(prune[index]!, 1e-3));
  const oursTiming = timing(ours);
  const pruneTiming = timing(prune);
  return {
    ours: oursTiming,
    pruneMessages: pruneTiming,
    ratioOfMedians: oursTiming.medianMs / pruneTiming.medianMs,
    ratioOfMinimums: oursTiming.minMs / pruneTiming.minMs,
    rounds: { median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound) },
  };
}

/** Two young-generation collections: what was just allocated moves out of the young generation. */
function promoteYoung(): void {
  const collect = gc as ((options?: { type: "minor" }) => void) | undefined;
  collect?.({ type: "minor" });
  collect?.({ type: "minor" });
}

/** Times `name` and `pruneMessages` at `size`, in alternating rounds, in this process. */
export async function measureStatelessHere(
  name: ContenderName,
  size: number,
  rounds: Rounds = statelessRounds,
): Promise<StatelessRow> {
  const workload = statelessWorkload(size);
  const ours = contender(name, workload);
  const prune = pruneContender(workload, !isWarm(name));
  const contenders = [ours, prune];
  const samples: Samples[] = [
    { wall: [], cpu: [] },
    { wall: [], cpu: [] },
  ];
  const outputs: unknown[] = [undefined, undefined];
  const { warmUps, timed: timedRounds } = rounds(size);
  const started = performance.now();
  for (let round = 0, recorded = 0; recorded < timedRounds; round += 1) {
    const warm = round >= warmUps && performance.now() - started >= MIN_WARM_UP_MS;
    const inputs = contenders.map((each) => each.input());
    promoteYoung();
    for (let step = 0; step < 2; step += 1) {
      const index = round % 2 === 0 ? step : 1 - step;
      const input = inputs[index];
      outputs[index] = await timed(
        () => contenders[index]!.run(input),
        warm ? samples[index] : undefined,
      );
    }
    if (warm) recorded += 1;
  }
  const wall = clock(samples[0]!.wall, samples[1]!.wall);
  const cpu = clock(samples[0]!.cpu, samples[1]!.cpu);
  return {
    contender: name,
    messages: size,
    ours: wall.ours,
    pruneMessages: wall.pruneMessages,
    ratio: wall.ratioOfMedians,
    wall,
    cpu,
    fullResults: {
      ours: ours.fullResults(outputs[0]),
      pruneMessages: prune.fullResults(outputs[1]),
    },
  };
}

const isMain = process.argv[1]?.endsWith("stateless.ts") === true;
if (isMain) {
  const option = (name: string): string | undefined => {
    const flag = process.argv.indexOf(name);
    return flag === -1 ? undefined : process.argv[flag + 1];
  };
  const timedRounds = option("--rounds");
  const warmUps = option("--warm-ups");
  const rounds: Rounds = (size) => ({
    warmUps: warmUps === undefined ? statelessRounds(size).warmUps : Number(warmUps),
    timed: timedRounds === undefined ? statelessRounds(size).timed : Number(timedRounds),
  });
  const child = option("--row");
  if (child !== undefined) {
    const [name, size] = child.split("@") as [ContenderName, string];
    const row = await measureStatelessHere(name, Number(size), rounds);
    process.stdout.write(`${ROW_MARKER}${JSON.stringify(row)}\n`);
  } else {
    const sizes = (option("--sizes") ?? "1000,10000").split(",").map(Number);
    const contenders = option("--contenders")?.split(",") as ContenderName[] | undefined;
    const processes = Number(option("--processes") ?? STATELESS_PROCESSES);
    const rows = measureStateless({
      sizes,
      rounds,
      processes,
      ...(contenders === undefined ? {} : { contenders }),
      progress: (text) => process.stderr.write(text),
    });
    process.stderr.write("\n");
    process.stdout.write(statelessReport(rows));
  }
}
