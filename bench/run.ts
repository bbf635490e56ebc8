/**
 * `npm run bench`: the deterministic, offline benchmark. Part 1 runs simulated agent loops
 * with every strategy; part 2 times `compact` and `maybeCompact`; part 3 times
 * `ThresholdCompactor.compact` side by side with the AI SDK's `pruneMessages` and LangChain's
 * `trimMessages`; part 4 times the stores; part 5 prices simulated and real runs in dollars at
 * cache prices (`bench/dollars.ts`); the real-runs part replays published agent runs for
 * next-use retention and dollars against trim-only (`bench/real-runs.ts`). Prints tables and the issue's targets with PASS/FAIL, and writes
 * `bench/results.json` (a part run alone replaces only its own key).
 *
 *   npm run bench                      everything (3–5 minutes on 2 cores; part 3 runs each size
 *                                      in a fresh process)
 *   npm run bench -- --quick           50 and 200 steps, 1k and 10k messages
 *   npm run bench -- --only peers      one part: trajectories | speed | peers | stores | dollars | stateless | model-compaction | realruns (also --only=peers)
 *   npm run bench -- --only realruns [--realdata DIR] [--window 64000]
 *                                      the real runs (default ../shared/realdata): next-use
 *                                      retention and dollars against trim-only
 *   npm run bench -- --only dollars --trajectories ../shared/realdata [--window 64000]
 *                                      part 5 on the simulated runs and on recorded runs
 *   npm run bench -- --trim-budget=600 time trimMessages where one run is estimated under 600 s
 *                                      (default 60: it is quadratic, so 100k is skipped)
 *   npm run bench -- --readme          also writes bench/README.md and bench/README-summary.md
 *   npm run bench -- --readme-only     rewrites both from bench/results.json
 *   npm run bench -- --trajectories ../shared/realdata [--window 64000]
 *                                      replays recorded agent runs through each strategy
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { type DollarResults, runDollars } from "./dollars-part.js";
import { dollarsReadme, dollarTargets } from "./dollars-report.js";
import {
  FLOOR_HEADERS,
  type FloorRow,
  floorRatioLines,
  floorRows,
  growth,
  growthLine,
  measureFloors,
  medianFloorRow,
} from "./floors.js";
import { renderTable } from "./format.js";
import { type ModelCompactionRun, runModelCompaction } from "./model-compaction.js";
import {
  DEFAULT_TRIM_BUDGET_MS,
  measurePeers,
  medianProcessRow,
  PEER_HEADERS,
  type PeerResults,
  type PeerRow,
  peerOutcomeLines,
  peerRows,
  peerSamples,
  peerVersions,
  peerWarmUps,
  processRatioLines,
} from "./peers.js";
import { benchReadme, readmeSummary } from "./readme.js";
import {
  DEFAULT_REAL_RUN_WINDOW,
  DEFAULT_REALDATA,
  type RealRunsResults,
  replayRealRuns,
} from "./real-runs.js";
import { realRunsReadme, realRunsReport, realRunTargets } from "./real-runs-report.js";
import { replayAll, replayHeaders, replayRows } from "./replay.js";
import { speedTable, TRAJECTORY_HEADERS, targetLines, trajectoryRows } from "./report.js";
import { DEFAULT_SIMULATION_SETTINGS, PRICES, type RunMetrics, simulate } from "./simulate.js";
import { measureSpeed, type SpeedRow } from "./speed.js";
import {
  measureStateless,
  type StatelessRow,
  statelessReadme,
  statelessReport,
  statelessTargets,
} from "./stateless.js";
import {
  type CompactionWritesRow,
  type IdleRow,
  measureCompactionWrites,
  measureIdle,
  renderStoreCosts,
} from "./store-costs.js";
import { measureStores, STORE_HEADERS, type StoreRow, storeRows } from "./stores.js";
import { STRATEGIES } from "./strategies.js";
import { peerTargets, speedTargets, type TargetCheck, trajectoryTargets } from "./targets.js";
import { generateTrajectory, type Trajectory, type WorkloadShape } from "./workload.js";

const SEED = 20_260_101;
const SHAPES: readonly WorkloadShape[] = ["short-turns", "long-turn"];
const PARTS = [
  "trajectories",
  "speed",
  "peers",
  "stores",
  "dollars",
  "stateless",
  "model-compaction",
  "realruns",
] as const;
type Part = (typeof PARTS)[number];

const argv = process.argv.slice(2);
const args = new Set(argv);
const quick = args.has("--quick");

function optionValue(name: string): string | undefined {
  const inline = argv.find((arg) => arg.startsWith(`${name}=`));
  if (inline !== undefined) return inline.slice(name.length + 1);
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
}

const onlyValue = optionValue("--only");
if (onlyValue !== undefined && !PARTS.includes(onlyValue as Part)) {
  process.stderr.write(`--only must be one of ${PARTS.join(", ")}; got ${onlyValue}\n`);
  process.exit(2);
}
const only = onlyValue as Part | undefined;
const runs = (part: Part) => only === undefined || only === part;
const trimBudgetSeconds = Number(optionValue("--trim-budget") ?? DEFAULT_TRIM_BUDGET_MS / 1000);
const stepCounts = quick ? [50, 200] : [50, 200, 500, 2000];
const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];

const print = (text = "") => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(text);

const resultsPath = fileURLToPath(new URL("./results.json", import.meta.url));
const readmePath = fileURLToPath(new URL("./README.md", import.meta.url));
const summaryPath = fileURLToPath(new URL("./README-summary.md", import.meta.url));

interface WorkloadSummary {
  shape: WorkloadShape;
  steps: number;
  seed: number;
  facts: number;
  observationShare: number;
  largestOutputTokens: number;
}

interface Environment {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
}

/** What `bench/results.json` holds (older files may lack `peers`). */
interface Results {
  version: number;
  seed: number;
  settings: typeof DEFAULT_SIMULATION_SETTINGS;
  prices: typeof PRICES;
  environment: Environment;
  strategies: { name: string; description: string; origin: string }[];
  workloads: WorkloadSummary[];
  trajectories: RunMetrics[];
  speed: SpeedRow[];
  peers?: PeerResults;
  stores?: StoreRow[];
  /** Compaction the model asks for at sub-task boundaries, beside threshold-triggered. */
  modelCompaction?: { seed: number; runs: ModelCompactionRun[] };
  /** Converting and compacting a conversation this process never saw, beside pruneMessages. */
  stateless?: StatelessRow[];
  /** A stored session beside AgentSession: idle maybeCompact, and what compactions write. */
  storeCosts?: { idle: IdleRow[]; writes: CompactionWritesRow[] };
  dollars?: DollarResults;
  /** Published agent runs replayed: next-use retention and dollars against trim-only. */
  realruns?: RealRunsResults;
  targets: TargetCheck[];
}

function readResults(): Results | undefined {
  if (!existsSync(resultsPath)) return undefined;
  try {
    return JSON.parse(readFileSync(resultsPath, "utf8")) as Results;
  } catch {
    return undefined;
  }
}

function writeReadmes(results: Results): void {
  const input = {
    runs: results.trajectories,
    speed: results.speed,
    peers: results.peers,
    stores: results.stores,
    targets: results.targets,
    environment: results.environment,
    realruns: results.realruns,
  };
  const dollars = results.dollars === undefined ? "" : `\n${dollarsReadme(results.dollars)}`;
  const realRuns = results.realruns === undefined ? "" : `\n${realRunsReadme(results.realruns)}`;
  const costs = results.storeCosts;
  const storeCosts =
    costs === undefined
      ? ""
      : `\n## Stored sessions beside AgentSession\n\nOne core behind both faces (issue 21): an idle \`maybeCompact\` on a stored session is the in-memory call plus one store read, and a compaction writes its head (the live conversation) and its own archive records, never the earlier ones.\n\n\`\`\`\n${renderStoreCosts(costs.idle, costs.writes)}\n\`\`\`\n`;
  const stateless =
    results.stateless === undefined ? "" : `\n${statelessReadme(results.stateless)}`;
  writeFileSync(
    readmePath,
    `${benchReadme(input).trimEnd()}\n${realRuns}${storeCosts}${stateless}${dollars}`,
  );
  writeFileSync(summaryPath, readmeSummary(input));
  print(`Wrote bench/README.md and, to paste into the README, bench/README-summary.md:`);
  print();
  print(readFileSync(summaryPath, "utf8").trimEnd());
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

const CHILD_ROW_MARKER = "peer-row:";

/**
 * Fresh processes per size in part 3. The ours/pruneMessages ratio moves between processes
 * more than within one (where the heap puts the conversation, what the JIT compiled): each
 * size keeps the row of the process with the median ratio, and records all of them.
 */
const PEER_PROCESSES = 3;

/** Runs this script again with `args` and returns the row its child side prints. */
function rowFromChild<T>(args: readonly string[], what: string): T {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), ...args],
    { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const line = child.stdout
    ?.split("\n")
    .find((candidate) => candidate.startsWith(CHILD_ROW_MARKER));
  if (child.status !== 0 || line === undefined)
    throw new Error(`${what} failed (exit ${child.status ?? child.signal})`);
  return JSON.parse(line.slice(CHILD_ROW_MARKER.length)) as T;
}

/**
 * Part 3, one size per fresh process (this script with `--peer-size`): what a size leaves
 * behind (the library's caches are module-level WeakMaps whose tables keep the size of every
 * message they ever held, the JIT's feedback, the heap) slowed `compact` at the next size by
 * up to 3x, so that no size's numbers depend on what ran before it.
 */
function measurePeerSizeInChild(
  size: number,
  previousTrim: { messages: number; trimMs: number } | undefined,
): PeerRow {
  return rowFromChild<PeerRow>(
    [
      `--peer-size=${size}`,
      `--trim-budget=${trimBudgetSeconds}`,
      ...(previousTrim === undefined
        ? []
        : [`--previous-trim=${previousTrim.messages}:${previousTrim.trimMs}`]),
    ],
    `the peer part at ${size} messages`,
  );
}

/** `--peer-size=N`: the child side of {@link measurePeerSizeInChild}. */
async function peerSizeChild(size: number): Promise<void> {
  const previous = optionValue("--previous-trim")?.split(":").map(Number);
  const [row] = await measurePeers({
    sizes: [size],
    samples: peerSamples,
    warmUps: peerWarmUps,
    trimBudgetMs: trimBudgetSeconds * 1000,
    previousTrim:
      previous === undefined ? undefined : { messages: previous[0]!, trimMs: previous[1]! },
  });
  print(`${CHILD_ROW_MARKER}${JSON.stringify(row)}`);
}

/** `--floor-size=N`: ours beside the floors (`bench/floors.ts`) in a process of their own. */
async function floorSizeChild(size: number): Promise<void> {
  const row = await measureFloors(size, {
    warmUps: peerWarmUps(size),
    samples: Math.min(peerSamples(size), 61),
  });
  print(`${CHILD_ROW_MARKER}${JSON.stringify(row)}`);
}

/** Part 3: prints its table and returns what goes into `results.json`. */
function runPeers(environment: Environment): PeerResults {
  progress("peers:");
  const loadBefore = os.loadavg();
  const rows: PeerRow[] = [];
  const floors: FloorRow[] = [];
  let previousTrim: { messages: number; trimMs: number } | undefined;
  for (const size of sizes) {
    const processes: PeerRow[] = [];
    for (let run = 0; run < PEER_PROCESSES; run += 1) {
      progress(` ${size}${PEER_PROCESSES > 1 ? `#${run + 1}` : ""}`);
      processes.push(measurePeerSizeInChild(size, previousTrim));
    }
    const row = medianProcessRow(processes);
    rows.push(row);
    if (row.trimMessages !== undefined)
      previousTrim = { messages: size, trimMs: row.trimMessages.medianMs };
    const floorProcesses: FloorRow[] = [];
    for (let run = 0; run < PEER_PROCESSES; run += 1) {
      progress(` floors@${size}${PEER_PROCESSES > 1 ? `#${run + 1}` : ""}`);
      floorProcesses.push(
        rowFromChild<FloorRow>([`--floor-size=${size}`], `the floors at ${size} messages`),
      );
    }
    floors.push(medianFloorRow(floorProcesses));
  }
  progress(" done\n");
  const loadAfter = os.loadavg();
  print();
  print(
    "Part 3 · peers · medians, side by side in one process per size (interleaved runs, no forced GC); " +
      "ours = new ThresholdCompactor({ toolCompaction: 'redact' }).compact(conversation, new Map())",
  );
  print(renderTable(PEER_HEADERS, peerRows(rows)));
  print("What each left (the same job: old tool output gone, the last 3 turns whole):");
  for (const line of peerOutcomeLines(rows)) print(`  ${line}`);
  print("Between processes:");
  for (const line of processRatioLines(rows)) print(`  ${line}`);
  print("Ours beside the floors (bench/floors.ts), interleaved, in processes of their own:");
  print(renderTable(FLOOR_HEADERS, floorRows(floors)));
  for (const line of floorRatioLines(floors)) print(`  ${line}`);
  const grown = growth(rows, floors);
  if (grown !== undefined) print(growthLine(grown));
  print(
    `Load average (1 min) ${loadBefore[0]?.toFixed(1)} before, ${loadAfter[0]?.toFixed(1)} after, on ${environment.cpus} CPUs.`,
  );
  return {
    environment,
    loadAverage: { before: loadBefore, after: loadAfter },
    versions: peerVersions(),
    rows,
    floors,
  };
}

/**
 * The real-runs part: `--realdata DIR` (default ../shared/realdata), `--window N`. Without the
 * folder a full run skips it (keeping the saved figures) and `--only realruns` fails.
 */
async function runRealRuns(): Promise<RealRunsResults | undefined> {
  const directory = optionValue("--realdata") ?? DEFAULT_REALDATA;
  const window = Number(optionValue("--window") ?? DEFAULT_REAL_RUN_WINDOW);
  if (!existsSync(directory)) {
    if (only === "realruns") {
      process.stderr.write(`No real runs at ${directory}: pass --realdata DIR.\n`);
      process.exit(1);
    }
    print();
    print(`Real runs · skipped: no ${directory} (--realdata DIR)`);
    return undefined;
  }
  const results = await replayRealRuns({ directory, window, progress });
  print();
  print(realRunsReport(results));
  return results;
}

async function main(): Promise<void> {
  const started = performance.now();
  const environment: Environment = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
  };
  print(
    `agent-compaction benchmark · ${environment.node} · ${environment.cpus} × ${environment.cpuModel}`,
  );
  const saved = readResults();
  const newTargets: TargetCheck[] = [];

  let trajectories = saved?.trajectories ?? [];
  let workloads = saved?.workloads ?? [];
  if (runs("trajectories")) {
    ({ runs: trajectories, workloads } = await runTrajectories());
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
        renderTable(
          TRAJECTORY_HEADERS,
          trajectoryRows(trajectories.filter((run) => run.shape === shape)),
        ),
      );
    }
    newTargets.push(...trajectoryTargets(trajectories));
  }

  let speed = saved?.speed ?? [];
  if (runs("speed")) {
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
    newTargets.push(...speedTargets(speed));
  }

  let peers = saved?.peers;
  if (runs("peers")) {
    peers = runPeers(environment);
    newTargets.push(...peerTargets(peers.rows, peers.floors));
  }

  let modelCompaction = saved?.modelCompaction;
  if (runs("model-compaction"))
    modelCompaction = await runModelCompaction({ quick, seed: SEED, print, progress });

  let stateless = saved?.stateless;
  if (runs("stateless")) {
    print();
    print(
      "Part 6 · first sight (core API and each adapter's stateless path) and warm, beside pruneMessages",
    );
    progress("stateless:");
    stateless = measureStateless({
      sizes: quick ? [1_000, 10_000] : [1_000, 10_000, 100_000],
      progress,
    });
    progress(" done\n");
    print(statelessReport(stateless));
    newTargets.push(...statelessTargets(stateless));
  }

  let stores = saved?.stores;
  let storeCosts = saved?.storeCosts;
  if (runs("stores")) {
    print();
    print("Part 4 · stores · appends and compactions per second, 1 and 8 workers, real servers");
    stores = await measureStores(quick);
    print(renderTable(STORE_HEADERS, storeRows(stores)));
    print();
    print(
      "Part 4 · stored sessions beside AgentSession · idle maybeCompact, what compactions write",
    );
    const idle = await measureIdle(quick ? [1_000] : [1_000, 10_000]);
    const writes = await measureCompactionWrites(quick ? [10] : [10, 100, 300]);
    storeCosts = { idle, writes };
    print(renderStoreCosts(idle, writes));
  }

  let dollars = saved?.dollars;
  if (runs("dollars")) {
    const directory = optionValue("--trajectories");
    dollars = await runDollars({
      quick,
      seed: SEED,
      saved: dollars,
      ...(directory === undefined
        ? {}
        : { recorded: { directory, window: Number(optionValue("--window") ?? 64_000) } }),
      print,
      progress,
    });
    newTargets.push(...dollarTargets(dollars.simulated, dollars.real?.runs));
  }

  let realruns = saved?.realruns;
  if (runs("realruns")) {
    realruns = (await runRealRuns()) ?? realruns;
    if (realruns !== undefined) newTargets.push(...realRunTargets(realruns));
  }

  print();
  print("Targets");
  for (const line of targetLines(newTargets)) print(line);

  const results: Results = {
    version: 1,
    seed: SEED,
    settings: DEFAULT_SIMULATION_SETTINGS,
    prices: PRICES,
    environment,
    strategies: STRATEGIES.map(({ name, description, origin }) => ({ name, description, origin })),
    workloads,
    trajectories,
    speed,
    ...(peers === undefined ? {} : { peers }),
    ...(stores === undefined ? {} : { stores }),
    ...(stateless === undefined ? {} : { stateless }),
    ...(modelCompaction === undefined ? {} : { modelCompaction }),
    ...(storeCosts === undefined ? {} : { storeCosts }),
    ...(dollars === undefined ? {} : { dollars }),
    ...(realruns === undefined ? {} : { realruns }),
    targets: [
      ...trajectoryTargets(trajectories),
      ...speedTargets(speed),
      ...(peers === undefined ? [] : peerTargets(peers.rows, peers.floors)),
      ...(stateless === undefined ? [] : statelessTargets(stateless)),
      ...(dollars === undefined ? [] : dollarTargets(dollars.simulated, dollars.real?.runs)),
      ...(realruns === undefined ? [] : realRunTargets(realruns)),
    ],
  };
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  print();
  print(`Wrote bench/results.json in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  if (args.has("--readme")) writeReadmes(results);
}

const peerSize = optionValue("--peer-size");
const floorSize = optionValue("--floor-size");
if (peerSize !== undefined) {
  await peerSizeChild(Number(peerSize));
} else if (floorSize !== undefined) {
  await floorSizeChild(Number(floorSize));
} else if (args.has("--readme-only")) {
  const saved = readResults();
  if (saved === undefined) {
    process.stderr.write("No readable bench/results.json: run `npm run bench` first.\n");
    process.exit(1);
  }
  writeReadmes(saved);
} else {
  const replayDirectory = optionValue("--trajectories");
  if (replayDirectory === undefined || only === "dollars") await main();
  else {
    // Real agent runs (e.g. ../shared/realdata): each replayed through each strategy.
    const window = Number(optionValue("--window") ?? 64_000);
    print(`Replaying ${replayDirectory} with a ${window}-token window, one request per reply`);
    const results = await replayAll(replayDirectory, window);
    print(renderTable(replayHeaders(), replayRows(results)));
  }
}
