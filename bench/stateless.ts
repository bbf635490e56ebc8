/**
 * The stateless-server figure of `npm run bench`: a server that gets the whole history with
 * each request (an HTTP handler, a `prepareStep` without memory) converts and compacts a
 * conversation this process has never seen. Timed side by side, in one process, on the same
 * AI SDK conversation as part 3 (`bench/peers.ts`):
 *
 * - ours: `compactModelMessages(messages, { contextLimit, compactor })` from
 *   `agent-compaction/ai-sdk`, the compactor `new ThresholdCompactor({ toolCompaction:
 *   "redact" })`: converts the `ModelMessage[]` to ours, masks every tool result older than the
 *   last 3 turns, converts back. Each run gets a fresh deep copy (made untimed): new objects.
 * - the AI SDK's `pruneMessages` with `toolCalls: "before-last-N-messages"` (the same job as in
 *   part 3), on a fresh copy too.
 *
 * Method, for a machine shared with other work: the two run in alternating rounds (ours first
 * on even rounds, pruneMessages first on odd ones, so neither always inherits the other's
 * garbage), each run timed by the wall clock and by the process's CPU time
 * (`process.cpuUsage()`, which time spent waiting for a core does not inflate). Per size it
 * reports the ratio of the medians, of the minimums, and the median, minimum and maximum of
 * the per-round ratios (ours / pruneMessages in the same round, on the same input). Each size
 * runs in three fresh processes one after the other (the load of a shared machine moves
 * between them more than within one); the row is the process with the median per-round CPU
 * ratio, and every process's ratio is kept beside it. The target is judged on that ratio.
 *
 * Run alone: `npx tsx bench/stateless.ts [--sizes 1000,10000] [--rounds 101] [--processes 3]`.
 * The target: ours at most 2x pruneMessages at 10k messages.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type ModelMessage, pruneMessages } from "ai";
import { compactModelMessages } from "../src/ai-sdk/index.js";
import { ThresholdCompactor } from "../src/index.js";
import { formatMs, renderTable } from "./format.js";
import { buildPeerWorkload, type PeerTiming } from "./peers.js";
import { gc, median } from "./speed.js";
import type { TargetCheck } from "./targets.js";

/** The ratio the stateless target allows at 10k messages. */
export const STATELESS_TARGET_RATIO = 2;

/** Per-round ratios (ours / pruneMessages, same round): their median and extremes. */
export interface RoundRatios {
  median: number;
  min: number;
  max: number;
}

/** One clock's view of a size: each contender's timing and the ratios. */
export interface StatelessClock {
  ours: PeerTiming;
  pruneMessages: PeerTiming;
  /** ours / pruneMessages, medians. */
  ratioOfMedians: number;
  /** ours / pruneMessages, fastest runs. */
  ratioOfMinimums: number;
  rounds: RoundRatios;
}

/** One size's timing. */
export interface StatelessRow {
  messages: number;
  /** Wall clock (as `ratio`). */
  ours: PeerTiming;
  pruneMessages: PeerTiming;
  /** ours / pruneMessages (wall-clock medians). */
  ratio: number;
  /** Both clocks in full; the target reads `cpu.rounds.median`. */
  wall: StatelessClock;
  cpu: StatelessClock;
  /** Tool results still full after each: the same job. */
  fullResults: { ours: number; pruneMessages: number };
  /** Each process's median per-round ratio (CPU, then wall), the row's among them. */
  processes?: { cpu: number; wall: number }[];
}

/**
 * New objects and arrays all the way down, the strings shared: what the library has never seen,
 * as part 3's fresh copies are. (A request body parsed from JSON also has new strings; moving
 * them out of the young generation is the parse's cost, whoever allocates next pays it.)
 */
function freshCopy<T>(value: T, depth = 0): T {
  if (typeof value !== "object" || value === null || depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => freshCopy(item, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = freshCopy(item, depth + 1);
  return out as T;
}

function fullResults(messages: readonly ModelMessage[], notice: string): number {
  let full = 0;
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content)
      if (part.type === "tool-result" && !JSON.stringify(part.output).includes(notice)) full += 1;
  }
  return full;
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

async function timed(run: () => unknown, into: Samples | undefined): Promise<void> {
  const cpu = cpuMs();
  const wall = performance.now();
  await run();
  const wallElapsed = performance.now() - wall;
  const cpuElapsed = cpuMs() - cpu;
  into?.wall.push(wallElapsed);
  into?.cpu.push(cpuElapsed);
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

/**
 * Times ours and `pruneMessages` at each size in `processes` fresh processes, one after the
 * other, and keeps the process with the median per-round CPU ratio (see the module's TSDoc).
 */
export function measureStateless(
  sizes: readonly number[],
  rounds: Rounds = statelessRounds,
  processes = STATELESS_PROCESSES,
): StatelessRow[] {
  return sizes.map((size) => {
    const measured: StatelessRow[] = [];
    for (let run = 0; run < processes; run += 1) measured.push(rowInChild(size, rounds(size)));
    measured.sort((a, b) => a.cpu.rounds.median - b.cpu.rounds.median);
    const row = measured[Math.floor((measured.length - 1) / 2)]!;
    const ratios = measured.map((each) => ({
      cpu: each.cpu.rounds.median,
      wall: each.wall.rounds.median,
    }));
    return { ...row, processes: ratios };
  });
}

/** This script again, for one size (`--row`), in a process of its own. */
function rowInChild(size: number, rounds: { warmUps: number; timed: number }): StatelessRow {
  const child = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      "--row",
      String(size),
      "--warm-ups",
      String(rounds.warmUps),
      "--rounds",
      String(rounds.timed),
    ],
    { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
  );
  const line = child.stdout?.split("\n").find((each) => each.startsWith(ROW_MARKER));
  if (child.status !== 0 || line === undefined)
    throw new Error(`the stateless part at ${size} messages failed (exit ${child.status})`);
  return JSON.parse(line.slice(ROW_MARKER.length)) as StatelessRow;
}

/** Times ours and `pruneMessages` at each size, in alternating rounds, in this process. */
export async function measureStatelessHere(
  sizes: readonly number[],
  rounds: Rounds = statelessRounds,
): Promise<StatelessRow[]> {
  const rows: StatelessRow[] = [];
  for (const size of sizes) {
    const workload = buildPeerWorkload(size);
    const compactor = new ThresholdCompactor({ toolCompaction: "redact" });
    const toolCalls = `before-last-${workload.pruneKeepLast}-messages` as const;
    // A context reported at 90% of a window far larger than any block: the compactor runs,
    // masking all it may, no text is clamped and the last resort is off, so the job stays
    // pruneMessages' (masking only).
    const options = {
      contextLimit: 10_000_000,
      contextUsed: 9_000_000,
      compactor,
      trimOnOverflow: false,
    };
    const oursOut = (await compactModelMessages(freshCopy(workload.modelMessages), options))
      .messages;
    const pruneOut = pruneMessages({ messages: freshCopy(workload.modelMessages), toolCalls });
    const contenders = [
      (input: ModelMessage[]) => compactModelMessages(input, options),
      (input: ModelMessage[]) => pruneMessages({ messages: input, toolCalls }),
    ];
    const samples: Samples[] = [
      { wall: [], cpu: [] },
      { wall: [], cpu: [] },
    ];
    const { warmUps, timed: timedRounds } = rounds(size);
    gc?.();
    const started = performance.now();
    for (let round = 0, recorded = 0; recorded < timedRounds; round += 1) {
      const warm = round >= warmUps && performance.now() - started >= MIN_WARM_UP_MS;
      for (let step = 0; step < 2; step += 1) {
        const index = round % 2 === 0 ? step : 1 - step;
        const input = freshCopy(workload.modelMessages);
        await timed(() => contenders[index]!(input), warm ? samples[index] : undefined);
      }
      if (warm) recorded += 1;
    }
    const wall = clock(samples[0]!.wall, samples[1]!.wall);
    const cpu = clock(samples[0]!.cpu, samples[1]!.cpu);
    rows.push({
      messages: size,
      ours: wall.ours,
      pruneMessages: wall.pruneMessages,
      ratio: wall.ratioOfMedians,
      wall,
      cpu,
      fullResults: {
        ours: fullResults(oursOut, "[Content redacted"),
        pruneMessages: fullResults(pruneOut, "\u0000"),
      },
    });
  }
  return rows;
}

const times = (value: number): string => `${value.toFixed(2)}x`;

/** The stateless target, checked on the 10k row's median per-round CPU ratio; none without one. */
export function statelessTargets(rows: readonly StatelessRow[]): TargetCheck[] {
  const at10k = rows.find((row) => row.messages === 10_000);
  if (at10k === undefined) return [];
  const ratio = at10k.cpu.rounds.median;
  const processes = at10k.processes?.map((each) => times(each.cpu)).join(", ");
  return [
    {
      target: `a stateless server (convert + compact + back, never-seen messages) at most ${STATELESS_TARGET_RATIO}x pruneMessages at 10k messages`,
      measured: `${times(ratio)} (median per-round CPU ratio${processes === undefined ? "" : `; processes ${processes}`})`,
      pass: ratio <= STATELESS_TARGET_RATIO,
    },
  ];
}

/** Part 6 of bench/README.md: what is timed, how, and the table. */
export function statelessReadme(rows: readonly StatelessRow[]): string {
  return [
    "## Part 6: a stateless server",
    "",
    "A server that gets the whole history with each request (an HTTP handler, a `prepareStep`",
    "without memory) converts and compacts a conversation it has never seen: part 3's AI SDK",
    "conversation, a new deep copy each run (made untimed), through",
    '`compactModelMessages(messages, { contextLimit, contextUsed, compactor: new ThresholdCompactor({ toolCompaction: "redact" }), trimOnOverflow: false })`',
    "(convert to ours, mask every tool result older than the last 3 turns, land as the session",
    "does, convert back; a window no text is clamped for and the last resort off, so the job is",
    "`pruneMessages`'), beside",
    "`pruneMessages` doing part 3's job on a copy of its own (`bench/stateless.ts`).",
    "",
    "Method: the two run in alternating rounds in one process, each run timed by the process's CPU",
    "time and by the wall clock; the ratio is ours / pruneMessages in the same round, and the row",
    "gives the median of those per-round ratios. Each size runs in three fresh processes one after",
    "the other; the row is the process with the median CPU ratio, and every process's ratio is",
    "listed under the table. A collection of the young generation (which copies the input made",
    "just before) lands in whichever call allocates when it fills: the per-round ratio passes over",
    "those rounds, where a ratio of medians would not.",
    "",
    "```",
    statelessReport(rows).trimEnd(),
    "```",
    "",
  ].join("\n");
}

/** The table and the target line. */
export function statelessReport(rows: readonly StatelessRow[]): string {
  const lines = rows.flatMap((row) =>
    (["cpu", "wall"] as const).map((name) => {
      const measured = row[name];
      return [
        String(row.messages),
        name,
        formatMs(measured.ours.medianMs),
        formatMs(measured.pruneMessages.medianMs),
        times(measured.ratioOfMedians),
        times(measured.ratioOfMinimums),
        `${times(measured.rounds.median)} (${times(measured.rounds.min)}-${times(measured.rounds.max)})`,
        `${row.fullResults.ours} / ${row.fullResults.pruneMessages}`,
      ];
    }),
  );
  const table = renderTable(
    [
      "messages",
      "clock",
      "ours (convert + compact + back)",
      "pruneMessages",
      "ratio of medians",
      "ratio of minimums",
      "per-round ratio: median (min-max)",
      "full results ours / prune",
    ],
    lines,
  );
  const between = rows
    .filter((row) => row.processes !== undefined && row.processes.length > 1)
    .map(
      (row) =>
        `- ${row.messages} messages: per-round ratio in ${row.processes!.length} processes, CPU ${row.processes!.map((each) => times(each.cpu)).join(", ")}; wall ${row.processes!.map((each) => times(each.wall)).join(", ")} (the row is the median CPU one)`,
    );
  const at10k = rows.find((row) => row.messages === 10_000);
  const target =
    at10k === undefined
      ? "stateless target: not measured (no 10k row)"
      : `stateless target (ours at most ${STATELESS_TARGET_RATIO}x pruneMessages at 10k, never-seen messages, median per-round CPU-time ratio of ${at10k.cpu.ours.samples} alternating rounds): ${times(at10k.cpu.rounds.median)} ${at10k.cpu.rounds.median <= STATELESS_TARGET_RATIO ? "PASS" : "FAIL"} (wall clock ${times(at10k.wall.rounds.median)})`;
  return [table, ...between, target, ""].join("\n");
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
    const [row] = await measureStatelessHere([Number(child)], rounds);
    process.stdout.write(`${ROW_MARKER}${JSON.stringify(row)}\n`);
  } else {
    const sizes = (option("--sizes") ?? "1000,10000").split(",").map(Number);
    const processes = Number(option("--processes") ?? STATELESS_PROCESSES);
    process.stdout.write(statelessReport(measureStateless(sizes, rounds, processes)));
  }
}
