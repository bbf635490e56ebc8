import { DEFAULT_SESSION_COMPACTOR_OPTIONS } from "../src/session/options.js";
import { type DollarRun, PRICE_SETS } from "./dollars-billing.js";
import { renderMarkdownTable } from "./format.js";
import { keepsEnough, retentionTargets } from "./retention-targets.js";
import type { TargetCheck } from "./targets.js";

/** A share of the window as the text says it (0.72 -> "72%"); "?" when the default has none. */
const percentOf = (share: number | undefined): string =>
  share === undefined ? "?" : `${Math.round(share * 100)}%`;

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
      ? [kept(run.retention["edited"]), kept(run.retention["path"])]
      : [kept(run.retention["constraint"]), kept(run.retention["path"])]),
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

/**
 * The dollar and retention targets, read from the simulated runs (and the recorded
 * ones, for retention): the default session, and the cheapest summarizing setup that keeps
 * what the issue asks, each at most {@link TRIM_SHARE} of trim-only's dollars.
 */
export function dollarTargets(
  runs: readonly DollarRun[],
  real: readonly DollarRun[] = [],
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const workload of [...new Set(runs.map((run) => run.workload))]) {
    const ofWorkload = runs.filter((run) => run.workload === workload);
    const trim = ofWorkload.find((run) => run.strategy === "trim");
    if (trim === undefined) continue;
    const fallback = ofWorkload.find((run) => run.strategy === "default");
    for (const set of TARGET_SETS) {
      const ratio = (run: DollarRun) =>
        (run.dollars[set]?.totalUsd ?? Number.NaN) / (trim.dollars[set]?.totalUsd ?? Number.NaN);
      const summarizing = ofWorkload
        .filter((run) => run.summarizerCalls > 0 && keepsEnough(run))
        .sort((a, b) => ratio(a) - ratio(b))[0];
      for (const [label, run] of [
        ["the default session", fallback],
        ["the best summarizing setup (of those keeping the retention targets)", summarizing],
      ] as const) {
        checks.push({
          target: `${workload} at ${set}: ${label} costs at most ${TRIM_SHARE}x trim-only`,
          measured: run === undefined ? "no such run" : `${run.strategy} ${ratio(run).toFixed(2)}x`,
          pass: run !== undefined && ratio(run) <= TRIM_SHARE,
        });
      }
    }
    if (fallback !== undefined)
      checks.push(...retentionTargets([["the default session", fallback]]));
    for (const run of ofWorkload.filter((candidate) => candidate.strategy.includes("cached"))) {
      if (run.summarizerCalls === 0) continue;
      checks.push({
        target: `${workload}: ${run.strategy}'s summary requests read at least ${percent(SUMMARY_CACHE_SHARE)} of their input from cache`,
        measured: percent(run.summarizerCacheReadShare),
        pass: run.summarizerCacheReadShare >= SUMMARY_CACHE_SHARE,
      });
    }
  }
  const realDefaults = real.filter((run) => run.strategy === "default");
  checks.push(...retentionTargets(realDefaults.map((run) => ["the default session", run])));
  return checks;
}

/** What {@link dollarsReadme} renders (part 5 of `results.json`). */
export interface DollarReadmeInput {
  settings: { contextLimit: number; systemTokens: number };
  seed: number;
  strategies: readonly { name: string; description: string }[];
  simulated: readonly DollarRun[];
  real?: { directory: string; window: number; runs: readonly DollarRun[] };
}

function markdownTables(runs: readonly DollarRun[]): string[] {
  const money = dollarRows(runs);
  const detail = dollarDetailRows(runs);
  return [
    renderMarkdownTable(money.headers, money.rows),
    "",
    renderMarkdownTable(detail.headers, detail.rows),
  ];
}

/** The ratio of a strategy's dollars to trim-only's, at a price set, in one workload. */
function ratioTo(runs: readonly DollarRun[], strategy: string, set: string): string {
  const run = runs.find((candidate) => candidate.strategy === strategy);
  const trim = runs.find((candidate) => candidate.strategy === "trim");
  const ratio =
    (run?.dollars[set]?.totalUsd ?? Number.NaN) / (trim?.dollars[set]?.totalUsd ?? Number.NaN);
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "-";
}

/** Part 5 of bench/README.md: method, tables, targets and what would close the gap. */
export function dollarsReadme(input: DollarReadmeInput): string {
  const workloads = [...new Set(input.simulated.map((run) => run.workload))];
  const last = workloads.at(-1) ?? "";
  const ofLast = input.simulated.filter((run) => run.workload === last);
  const defaultRun = ofLast.find((run) => run.strategy === "default");
  const fable = "Fable 5.1 (0.025x)";
  const flat = "0.1x flat ($3/$15)";
  const shares = input.simulated
    .filter((run) => run.strategy.includes("cached") && run.summarizerCalls > 0)
    .map((run) => run.summarizerCacheReadShare);
  const cachedShares =
    shares.length === 0 ? "-" : `${percent(Math.min(...shares))}–${percent(Math.max(...shares))}`;
  const lines: string[] = [
    "## Part 5: dollars at cache prices (synthetic simulated runs; recorded runs)",
    "",
    "`npm run bench -- --only dollars` (add `--trajectories ../shared/realdata` for the recorded runs). Every",
    "request is billed against a modelled prompt cache: it reads the longest prefix byte-identical to the",
    "previous request (system prompt and tools first, then message by message) and writes the rest as",
    "5-minute cache writes (1.25x); the cache is warm. A transcript summary (`LlmClient` without",
    "`acceptsConversation`) is cold input at 1x; a summary that sends the conversation (`AnthropicLlmClient`",
    "with the agent's `request`) is billed against the same cache. Prices come from `PRICING_PRESETS`",
    "(`src/models/presets.ts`, sources there) and a flat 0.1x set; Haiku 5.5 bills a whole request at its",
    "dearer tier above 100k prompt tokens. The agent's own output is the same for every strategy and is",
    "left out; the summarizer's output is in. *×trim* is the ratio to trim-only (`compactor: false`, only the",
    "last resort: oldest messages dropped above 95% of the window, down to 50%); *none* is priced only",
    "where every request fits the window.",
    "",
    `Synthetic (simulated) runs: short turns, ${input.settings.contextLimit.toLocaleString("en")}-token window, ${input.settings.systemTokens} tokens of system prompt and tools, seed ${input.seed}. The summarizer is`,
    "the deterministic mock of part 1: it keeps every id, path and constraint it is handed up to",
    "`maxSummaryTokens`, so the retention of summarizing strategies is an upper bound of what a model keeps.",
    "",
    "Strategies:",
    "",
    ...input.strategies.map((strategy) => `- \`${strategy.name}\`: ${strategy.description}.`),
    "",
  ];
  for (const workload of workloads) {
    lines.push(`### Synthetic (simulated), ${workload} steps`, "");
    lines.push(...markdownTables(input.simulated.filter((run) => run.workload === workload)), "");
  }
  if (input.real !== undefined) {
    const totals = realTotals(input.real.runs);
    lines.push(
      `### Recorded runs (\`${input.real.directory}\`, ${input.real.window.toLocaleString("en")}-token window)`,
      "",
      `All ${new Set(input.real.runs.map((run) => run.workload)).size} runs together (a column is "does not fit" when one run does not fit). Retention: the files the agent edited and the paths its tool inputs named that the final request still holds.`,
      "",
      ...markdownTables(totals),
      "",
      "Per run, at 0.1x and 0.025x cache reads (×trim):",
      "",
    );
    const strategies = [...new Set(input.real.runs.map((run) => run.strategy))];
    const files = [...new Set(input.real.runs.map((run) => run.workload))];
    const rows = files.map((file) => {
      const ofFile = input.real!.runs.filter((run) => run.workload === file);
      return [
        file,
        ...strategies.map(
          (strategy) => `${ratioTo(ofFile, strategy, flat)} / ${ratioTo(ofFile, strategy, fable)}`,
        ),
      ];
    });
    lines.push(renderMarkdownTable(["run", ...strategies], rows), "");
  }
  lines.push("### Targets (issue 23; synthetic, and the recorded runs' retention)", "");
  for (const check of dollarTargets(input.simulated, input.real?.runs)) {
    lines.push(`- ${check.pass ? "PASS" : "FAIL"} ${check.target}: ${check.measured}`);
  }
  lines.push(
    "",
    "### How the default gets there",
    "",
    `Synthetic figures (simulated runs). A request's input costs about its context times the read multiplier, plus what changed since the previous request times the write multiplier. Trim-only keeps the context between 50% and 95% of the window and rewrites the cache ${ofLast.find((run) => run.strategy === "trim")?.trims ?? "?"} times in ${last} steps. The default session compacted ${defaultRun?.compactions ?? "?"} times in ${last} steps, one every ${defaultRun === undefined || defaultRun.compactions === 0 ? "?" : (defaultRun.requests / defaultRun.compactions).toFixed(1)} requests (${ratioTo(ofLast, "default", flat)} trim at 0.1x, ${ratioTo(ofLast, "default", fable)} at 0.025x): each compaction is one deep rewrite, so the average context is small and the cache is rewritten rarely.`,
    "",
    `1. **One rewrite, not many.** From ${percentOf(DEFAULT_SESSION_COMPACTOR_OPTIONS.threshold)} of the window, old tool results give way to their summaries and, when that is not enough, the oldest messages go in the same rewrite (\`dropOldest\`), down to ${percentOf(DEFAULT_SESSION_COMPACTOR_OPTIONS.targetUtilization)} of the window. The notice that stands for them keeps the user's words, their directives, the file ledger (files read, edited, created, and the paths tool output named) and the outlines of the files read, so what the user asked and what the agent touched outlive every compaction. The ${DEFAULT_SESSION_COMPACTOR_OPTIONS.keepRecentToolUses} newest tool uses and the newest ${percentOf(DEFAULT_SESSION_COMPACTOR_OPTIONS.keepRecentShare)} of the window stay whole.`,
    "2. **Hysteresis from prices.** A session told its prices (`pricing`, or a `model` with a preset) compacts once the reads above the target since the last rewrite have paid for the next rewrite (`RewriteBudget`). For a context growing g tokens a request from a target T, that is at T + √(2·w·T·g / r) tokens, the cheapest trigger of a steady run: about 0.3 of a 200k window at 0.1x reads and 0.5 at 0.025x here (the `default, priced` row). The threshold stays the latest point.",
    "3. **No compaction that does not repay its write.** A rewrite that frees less than 10% of the window is skipped; a priced one waits until the reads it saves have paid for it.",
    "4. **No compaction leaves the context above its trigger.** When a compactor that just ran would still be due, the last resort trims down to its target in the same run, so the next request does not compact again.",
    `5. **Send the summary as the conversation.** A cold transcript pays 1x per token; the conversation request reads ${cachedShares} of its input from the cache here (it ends where the agent's last request ended; the rest is the instruction).`,
    "6. **Keep a stable head** (system, tools, pinned messages) before the summary, so the first request after a compaction still reads it.",
    "",
    `When not compacting is cheaper: when the run ends before the context reaches the trigger (every request reads the whole prefix at r), and when a compaction would free less than its rewrite costs. A compaction that frees F tokens and rewrites the A tokens after its first changed message saves r·F a request and costs w·A once: it is repaid after w·A / (r·F) requests, 12.5 requests at 0.1x and 50 at 0.025x even when A = F, and never when the run ends sooner or the next compaction comes first (a masking pass that frees a few thousand tokens and rewrites 150k is repaid only after hundreds of requests).`,
    "",
  );
  return lines.join("\n");
}
