import { pathToFileURL } from "node:url";
import type { AgentSession, AgentSessionOptions } from "../src/index.js";
import {
  BilledSession,
  type DollarRun,
  type DollarStrategyContext,
  factRetention,
  ledgerTokens,
  PRICE_SETS,
  priceLedger,
  tokensOf,
} from "./dollars-billing.js";
import { renderTable } from "./format.js";
import { answerStep, openStep } from "./sim-step.js";
import { DEFAULT_SIMULATION_SETTINGS } from "./simulate.js";
import { hybrid, llmOnly } from "./summarizing-setups.js";
import { generateTrajectory, type Trajectory } from "./workload.js";

/**
 * What the model's choice of when to compact changes (issue 25, point 3), on the simulated
 * runs of part 5. The simulated model is scripted: at a sub-task boundary (a new user request)
 * it calls the compact tool, which the session applies before the next request
 * (`requestCompaction`, as `answerCompact` does), either always or only once its context holds
 * a given share of the window (models told their context usage can judge that). Everything
 * else is the run of part 5: the same trajectories, the same compactors with their thresholds
 * still on as the safety net, every request billed against the prefix cache. What it cannot
 * measure is the model's judgment itself (whether a real model picks better moments, or
 * answers better after its own compactions, as SelfCompact reports): only tokens, dollars and
 * planted facts still in context at the end.
 *
 *   npx tsx bench/model-compaction.ts [--quick] [--seed N]
 */

/** When the scripted model asks for a compaction at a boundary. */
export type BoundaryPolicy =
  | { kind: "never" }
  /** At every new user request after the first. */
  | { kind: "every_boundary" }
  /** At a new user request when the context holds more than this share of the window. */
  | { kind: "boundary_above"; share: number };

/** The compactors a run uses (thresholds on in every policy). */
interface Base {
  name: string;
  cachedSummaries: boolean;
  options(context: DollarStrategyContext): Partial<AgentSessionOptions>;
}

const BASES: readonly Base[] = [
  { name: "default", cachedSummaries: false, options: () => ({}) },
  {
    name: "llm cached",
    cachedSummaries: true,
    options: llmOnly(),
  },
  {
    // The same trigger level as "boundary >30%" without the model: compacts mid-sub-task.
    name: "llm cached @30%",
    cachedSummaries: true,
    options: llmOnly({ threshold: 0.3 }),
  },
  {
    name: "mask+llm cached",
    cachedSummaries: true,
    options: hybrid(),
  },
  {
    // Part 5's cheapest threshold setting: compacting earlier and deeper without the model.
    name: "mask+llm cached 0.5→0.15",
    cachedSummaries: true,
    options: hybrid({ threshold: 0.5, targetUtilization: 0.15 }),
  },
];

const POLICIES: readonly { name: string; policy: BoundaryPolicy }[] = [
  { name: "threshold only", policy: { kind: "never" } },
  { name: "model: every boundary", policy: { kind: "every_boundary" } },
  { name: "model: boundary >30%", policy: { kind: "boundary_above", share: 0.3 } },
  { name: "model: boundary >50%", policy: { kind: "boundary_above", share: 0.5 } },
];

/** What one run did: part 5's counts, with the policy's requests and dollars as numbers. */
export interface ModelCompactionRun
  extends Pick<
    DollarRun,
    | "workload"
    | "requests"
    | "overWindow"
    | "compactions"
    | "summarizerCalls"
    | "cacheReadShare"
    | "retention"
  > {
  base: string;
  policy: string;
  /** Compactions the model asked for (the rest were threshold-triggered). */
  requested: number;
  /** Input tokens of every request (agent's and summarizer's), and the mean agent request. */
  inputTokens: number;
  meanRequestTokens: number;
  dollars: Record<string, number>;
}

function wantsCompaction(policy: BoundaryPolicy, session: AgentSession): boolean {
  if (policy.kind === "never") return false;
  if (policy.kind === "every_boundary") return true;
  return session.contextUsed > policy.share * session.contextLimit;
}

/** Runs one trajectory with one base and one policy, every request billed (as part 5 does). */
export async function simulateModelCompaction(
  trajectory: Trajectory,
  base: Base,
  policy: { name: string; policy: BoundaryPolicy },
  settings = DEFAULT_SIMULATION_SETTINGS,
): Promise<ModelCompactionRun> {
  const billed = new BilledSession({
    ...settings,
    sessionId: `model-compaction-${base.name}`,
    cachedSummaries: base.cachedSummaries,
    options: base.options,
  });
  const { session, ledger } = billed;
  let requested = 0;
  let agentTokens = 0;
  for (const [index, step] of trajectory.steps.entries()) {
    // The sub-task before this user request is done: the scripted model's compact call.
    if (step.userText !== undefined && index > 0 && wantsCompaction(policy.policy, session)) {
      session.requestCompaction();
      requested += 1;
    }
    const { usage, tokens } = billed.bill(await openStep(session, step));
    agentTokens += tokens;
    answerStep(session, step, (reply) => ({
      ...usage,
      outputTokens: tokensOf(JSON.stringify(reply.content)),
    }));
  }
  const priced = priceLedger(ledger, true);
  const totals = ledgerTokens(ledger);
  return {
    workload: `${trajectory.shape} ${trajectory.steps.length}`,
    base: base.name,
    policy: policy.name,
    requests: ledger.agent.length,
    overWindow: billed.overWindow,
    compactions: billed.counts.compactions,
    requested,
    summarizerCalls: ledger.summarizer.length,
    inputTokens: totals.tokens.input,
    meanRequestTokens: Math.round(agentTokens / Math.max(1, ledger.agent.length)),
    cacheReadShare: totals.cacheReadShare,
    dollars: Object.fromEntries(
      PRICE_SETS.map(({ name }) => [name, priced[name]?.totalUsd ?? Number.NaN]),
    ),
    retention: factRetention(trajectory, billed.last),
  };
}

const SHOWN_PRICES = ["Sonnet 5.5 (0.05x)", "Fable 5.1 (0.025x)", "0.1x flat ($3/$15)"];
const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
const kept = (entry: { planted: number; kept: number } | undefined) =>
  entry === undefined || entry.planted === 0 ? "-" : percent(entry.kept / entry.planted);

/** The table of one workload: a row per base and policy, dollars beside the base's threshold-only run. */
export function modelCompactionRows(runs: readonly ModelCompactionRun[]): {
  headers: string[];
  rows: string[][];
} {
  const headers = [
    "compactors",
    "when",
    "compactions (asked)",
    "mean request",
    "input Mtok",
    "cache read",
    ...SHOWN_PRICES.map((name) => `${name} $ (×threshold)`),
    "constraints",
    "paths",
    "ids",
    "numbers",
    "over window",
  ];
  const rows = runs.map((run) => {
    const baseline = runs.find(
      (other) => other.base === run.base && other.policy === "threshold only",
    );
    return [
      run.base,
      run.policy,
      `${run.compactions} (${run.requested})`,
      run.meanRequestTokens.toLocaleString("en"),
      (run.inputTokens / 1e6).toFixed(1),
      percent(run.cacheReadShare),
      ...SHOWN_PRICES.map((name) => {
        const usd = run.dollars[name] ?? Number.NaN;
        const ratio =
          (baseline?.dollars[name] ?? Number.NaN) > 0 ? usd / baseline!.dollars[name]! : Number.NaN;
        return `${usd.toFixed(2)} (${ratio.toFixed(2)})`;
      }),
      kept(run.retention["constraint"]),
      kept(run.retention["path"]),
      kept(run.retention["id"]),
      kept(run.retention["number"]),
      String(run.overWindow),
    ];
  });
  return { headers, rows };
}

/** What {@link runModelCompaction} needs from the runner. */
export interface ModelCompactionPartOptions {
  /** 200 steps instead of 500 and 2,000. */
  quick: boolean;
  seed: number;
  print: (text?: string) => void;
  progress: (text: string) => void;
}

/** The part: every base and policy over the short-turns trajectories, printed as tables. */
export async function runModelCompaction(
  options: ModelCompactionPartOptions,
): Promise<{ seed: number; runs: ModelCompactionRun[] }> {
  const runs: ModelCompactionRun[] = [];
  for (const steps of options.quick ? [200] : [500, 2000]) {
    const trajectory = generateTrajectory({ steps, shape: "short-turns", seed: options.seed });
    options.progress(`model compaction ${steps} steps:`);
    for (const base of BASES) {
      for (const policy of POLICIES) {
        runs.push(await simulateModelCompaction(trajectory, base, policy));
        options.progress(".");
      }
    }
    options.progress("\n");
  }
  options.print();
  options.print(
    `Model-requested compaction · window ${DEFAULT_SIMULATION_SETTINGS.contextLimit.toLocaleString("en")} tokens, seed ${options.seed}: ` +
      "a scripted model calls the compact tool at sub-task boundaries (new user requests); thresholds stay on; retention is planted facts in the last request",
  );
  for (const workload of [...new Set(runs.map((run) => run.workload))]) {
    const table = modelCompactionRows(runs.filter((run) => run.workload === workload));
    options.print();
    options.print(`simulated ${workload} steps`);
    options.print(renderTable(table.headers, table.rows));
  }
  return { seed: options.seed, runs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const argv = process.argv.slice(2);
  const seedIndex = argv.indexOf("--seed");
  const seed = seedIndex === -1 ? 42 : Number(argv[seedIndex + 1]);
  await runModelCompaction({
    quick: argv.includes("--quick"),
    seed,
    print: (text = "") => process.stdout.write(`${text}\n`),
    progress: (text) => process.stderr.write(text),
  });
}
