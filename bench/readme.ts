import { FLOOR_HEADERS, floorRatioLines, floorRows, growth, growthLine } from "./floors.js";
import { formatMs, renderMarkdownTable } from "./format.js";
import {
  DEFAULT_TRIM_BUDGET_MS,
  FRESH_SAMPLES,
  KEEP_RECENT_TURNS,
  PEER_HEADERS,
  type PeerResults,
  type PeerRow,
  peerOutcomeLines,
  peerRows,
  peerSamples,
  peerWarmUps,
  processRatioLines,
} from "./peers.js";
import type { RealRunsResults } from "./real-runs.js";
import { realRunsSummaryLine } from "./real-runs-report.js";
import { speedTable, TRAJECTORY_HEADERS, targetSection, trajectoryRows } from "./report.js";
import { DEFAULT_SIMULATION_SETTINGS, type RunMetrics } from "./simulate.js";
import type { SpeedRow } from "./speed.js";
import { STORE_HEADERS, type StoreRow, storeRows } from "./stores.js";
import { STRATEGIES } from "./strategies.js";
import { FLOOR_SLACK, type TargetCheck } from "./targets.js";

/** What `bench/README.md` and the summary are built from (one run, or `bench/results.json`). */
export interface ReadmeInput {
  runs: readonly RunMetrics[];
  speed: readonly SpeedRow[];
  peers?: PeerResults | undefined;
  stores?: readonly StoreRow[] | undefined;
  targets: readonly TargetCheck[];
  environment: { node: string; cpus: number; cpuModel: string; platform?: string };
  /** The real-runs part, when it ran. */
  realruns?: RealRunsResults | undefined;
}

/** The most lines {@link readmeSummary} may take. */
export const SUMMARY_MAX_LINES = 15;

function trajectoryTable(runs: readonly RunMetrics[], shape: string, steps: number): string {
  const all = runs.filter((run) => run.shape === shape);
  const rows = trajectoryRows(all).filter((_, index) => all[index]!.steps === steps);
  return renderMarkdownTable(
    TRAJECTORY_HEADERS.slice(1),
    rows.map((row) => row.slice(1)),
  );
}

function machine(environment: ReadmeInput["environment"]): string {
  const platform = environment.platform === undefined ? "" : ` (${environment.platform})`;
  return `Node ${environment.node} on ${environment.cpus} × ${environment.cpuModel}${platform}`;
}

function trajectorySection(runs: readonly RunMetrics[]): string[] {
  if (runs.length === 0) return [];
  const window = DEFAULT_SIMULATION_SETTINGS.contextLimit.toLocaleString("en");
  const steps = [...new Set(runs.map((run) => run.steps))];
  const parts = [
    "## Part 1: trajectories (synthetic: simulated runs; cost, window, facts)",
    "",
    "Synthetic figures: a simulated agent loop calls `maybeCompact()` before each request, builds the request from",
    `\`session.messages\` and reports the model's usage (the local estimate plus ${DEFAULT_SIMULATION_SETTINGS.systemTokens} tokens of system prompt and`,
    "tools). Tool outputs are heavy-tailed (log-normal, median 1.2k tokens, p99 30k, capped at 40k) and make up",
    `~86% of the tokens; a ${window}-token window. Two workloads: *short turns* (a user message every 2–12`,
    "steps) and *one long turn* (one request answered by every step). The summariser is a deterministic",
    "`MockLlmClient` that keeps every id, path, value and user constraint it is handed, newest first, up",
    "to `maxSummaryTokens`.",
    "",
    "Columns:",
    "",
    "- *billed input*: input tokens billed over the run, the summariser's input and output included; *vs none*: the change against no compaction.",
    "- *summariser*: the summariser's share of the billed tokens.",
    "- *peak*: the largest request.",
    "- *over window*: requests above the window (sent anyway and counted; a real API would refuse them).",
    "- *compactions*: compactions that changed the conversation; *trims*: runs of the session's last resort",
    "  `trimOnOverflow` (every strategy but `none` has it), which removes the oldest messages, handed to the",
    "  app in an event, when compaction leaves the context above the window.",
    "- *cache hit*: the share of input read from a simulated prefix cache; *rewrites*: requests that rewrote part of it.",
    "- *cost $*: at $3/MTok input, cache reads at 0.1x and writes at 1.25x (the summariser at list price).",
    "- *facts kept*: the share of planted facts (ids, paths, numbers, user constraints) present in the final",
    "  request; *kept or handed*: present, or handed to the summariser at some point.",
    "",
    "Strategies:",
    "",
    ...STRATEGIES.map((strategy) => `- \`${strategy.name}\`: ${strategy.description}.`),
    "",
  ];
  for (const count of steps.filter((count) => count === 500 || count === Math.max(...steps))) {
    for (const shape of ["short-turns", "long-turn"]) {
      if (!runs.some((run) => run.shape === shape && run.steps === count)) continue;
      parts.push(
        `${count.toLocaleString("en")} steps, ${shape === "short-turns" ? "short turns" : "one long turn"}:`,
        "",
        trajectoryTable(runs, shape, count),
        "",
      );
    }
  }
  parts.push(
    "Reading the tables: masking alone (any setting) slows the growth but cannot bound it, because",
    "the agent's own text and tool calls keep accumulating; without the last resort, long runs of the",
    "masking strategies overflow (138 to 176 of 500 requests over the window in an earlier run), and the",
    "seed's turn-based strategies never compact one long turn at all. With `trimOnOverflow` no request",
    "goes over the window, at the price of the trimmed messages (see *facts kept*: what the trim removed",
    "is handed to the app, not to the model). `keepRecentToolUses` reaches inside a long turn,",
    "`targetUtilization` with `clearAtLeast` turns many small rewrites into a few large ones (fewer cache",
    "rewrites, lower cost), and the strategies that can summarise (`llm→50%`, `hybrid`) stay inside the",
    "window at every length without trimming and keep the most facts. Facts found only inside tool",
    "outputs leave with the output when it is masked; over very long runs the summary budget",
    "(`maxSummaryTokens`) bounds how many facts a summary can carry.",
    "",
  );
  return parts;
}

function speedSection(speed: readonly SpeedRow[]): string[] {
  if (speed.length === 0) return [];
  const table = speedTable(speed);
  return [
    "## Part 2: speed of the library's own calls",
    "",
    "Conversations of turns of a user request, four tool calls with ~1 KB results (each with a compact",
    "summary) and a final answer. Each number is the median of repeated runs (41 at 1k messages, 15 at",
    "10k, 5 at 100k) after ten warm-up runs, with a forced GC before each run.",
    "",
    "- *floor (copy)*: `messages.map(m => ({ ...m, content: [...m.content] }))`, the least any compaction",
    "  returning new messages could cost; `(Nx)` after a time is that time over the floor.",
    "- *compact NAME*: `compact(conversation, new Map())` of a `ThresholdCompactor` (`summarize`, `redact`,",
    "  `toolUses 10` = `keepRecentToolUses: 10`) and of an `LLMCompactor` with a mock client (no network);",
    "  *redact (frozen array)*: `redact` on a frozen array of the same messages, like `session.messages`.",
    "- *maybeCompact under*: `session.maybeCompact()` below the threshold (nothing to do).",
    "- *maybeCompact over*: above it, in steady state: each run has one newly old turn to mask.",
    "- *step NAME*: a step of a session's loop as the README writes it: one turn appended, then",
    "  `toAnthropicMessages(session.messages)` (`toResponsesInput`, `toGeminiContents`, `toChatMessages`,",
    "  `toModelMessages`): the whole history converted for the request, each step.",
    "- *heap/message*: heap bytes per message of the conversation; *session/message*: what a session holding",
    "  it adds.",
    "",
    renderMarkdownTable(table.headers, table.rows),
    "",
  ];
}

function peerSection(peers: PeerResults | undefined): string[] {
  if (peers === undefined || peers.rows.length === 0) return [];
  const versions = Object.entries(peers.versions)
    .map(([name, version]) => `\`${name}@${version}\``)
    .join(", ");
  const load = (values: readonly number[]) => values[0]?.toFixed(1) ?? "?";
  return [
    "## Part 3: against the peers",
    "",
    `\`ThresholdCompactor.compact\` timed side by side, in one process, with ${versions}, doing the same`,
    `job: tool output older than the last ${KEEP_RECENT_TURNS} turns dropped, the last ${KEEP_RECENT_TURNS} turns kept whole (\`bench/peers.ts\`).`,
    "",
    "- The conversation: built with the repo's `ConversationBuilder` (seeded): turns of a user request,",
    "  1 to 6 tool calls (an assistant message with a sentence and a `tool_use`, then a `tool_result` of",
    "  1–4 KB with a compact summary) and a final answer. It is converted to the AI SDK's `ModelMessage[]`",
    "  (results become `tool` messages) and to LangChain's `BaseMessage[]` before timing.",
    '- *ours*: `new ThresholdCompactor({ toolCompaction: "redact" }).compact(conversation, new Map())`:',
    "  each old result's output becomes a short notice; the tool calls stay.",
    '- *pruneMessages*: `pruneMessages({ messages, toolCalls: "before-last-N-messages" })`, N the messages',
    "  of the last 3 turns (a turn is not a fixed number of messages); it removes old tool calls with their",
    "  results, and the `tool` messages left empty.",
    '- *trimMessages*: `await trimMessages(messages, { strategy: "last", startOn: "human", maxTokens,',
    "  tokenCounter })`, `maxTokens` the size of the last 3 turns by a chars/4 counter that reads only",
    "  string lengths; it drops every older message. It calls the counter on every shorter prefix until",
    "  one fits, so its time grows with the square of the messages it drops: a size whose run is",
    `  estimated over the budget (${DEFAULT_TRIM_BUDGET_MS / 1000} s; \`--trim-budget=SECONDS\`) is skipped. The estimate is`,
    "  optimistic: at 100k messages it said about a minute, and a one-off run (`--trim-budget=600`)",
    "  took 221 s on the machine below, once its arrays outgrew the CPU caches.",
    "- *ours per 1k msgs*: ours' median per 1,000 messages (on this machine it grows with the size even",
    "  for code that only reads each message: see *Linear?* below).",
    "- *ours* passes the same array each run, as a loop that appends to its conversation and compacts",
    "  it: the library remembers each array it validated (a copy of its elements and their estimate),",
    "  so a repeat costs one comparison per message, and messages appended since are checked alone;",
    "  the masking pass reuses the masked messages the pass before made of the same messages (a pass",
    "  keeps that record from a conversation's second pass on: one seen once never pays for it).",
    "- *ours (new array)*: `compact` on a new array of the same messages each run (made untimed): the",
    "  library remembers a conversation seen whole by its array, not message by message (a stateless",
    "  server sends new objects each time), so a new array is checked as at first sight, reusing the",
    "  masked messages of the pass before.",
    "- *ours (fresh)*: `compact` on a new copy of the messages each run (copied untimed): the first time",
    "  the library sees them, so every message is validated and estimated, as a stateless server that",
    "  receives the whole conversation with each request does: by a hand-written check in front of the",
    "  schema (`src/core/message-fast-check.ts`; the schema decides what it does not accept), in one",
    "  pass that also checks the ids and the tool exchanges. Part 6 times first sight as the issue asks.",
    "",
    "Method: each size runs in three fresh processes, since what a size leaves behind (the library's",
    "caches are module-level WeakMaps whose tables keep the size of every message they ever held,",
    "the JIT's feedback, the heap) slowed `compact` at the next size by up to 3x, and the ratio moves",
    "more between processes than within one. Each row is the process with the median ours/prune",
    "ratio; the ratios of all three are listed under the table. In a process, ours and",
    "pruneMessages run in alternating rounds (ours first, then",
    `pruneMessages first): warm-up rounds (at least ${peerWarmUps(1000)} at 1k, ${peerWarmUps(10_000)} at 10k, ${peerWarmUps(100_000)} at 100k, and at least a second`,
    `of them), then ${peerSamples(1000)}, ${peerSamples(10_000)} and ${peerSamples(100_000)} timed rounds. trimMessages, *ours (new array)* and *ours (fresh)* run after them, apart:`,
    "trimMessages leaves hundreds of megabytes of garbage, and new arrays fill the library's caches",
    `(WeakMaps) until the next GC. *ours (new array)* gets at most 61 timed runs, *ours (fresh)* at most ${FRESH_SAMPLES}, trimMessages at most 61,`,
    "7 when a run takes more than 50 ms, and one when it takes more than 5 s. The numbers are medians,",
    "the ratios ratios of medians (`results.json` also has each fastest run). No GC is forced between",
    "runs: a forced full GC slows the call right after it by up to 10x, and unevenly between contenders.",
    "",
    renderMarkdownTable(PEER_HEADERS, peerRows(peers.rows)),
    "",
    "What each left, checked untimed (the same full outputs: those of the last 3 turns):",
    "",
    ...peerOutcomeLines(peers.rows).map((line) => `- ${line}`),
    "",
    ...(peers.rows.some((row) => row.processRatios !== undefined)
      ? [
          "ours/prune in each process:",
          "",
          ...processRatioLines(peers.rows).map((line) => `- ${line}`),
          "",
        ]
      : []),
    "Reading it: ours' calls spread more than pruneMessages' (they wait on memory: a call right after",
    "pruneMessages', whose garbage has pushed the conversation out of the CPU caches, takes about",
    "1.5x one right after its own), so the ratio moves between processes and runs on this 2-core",
    "machine, shared with other work: compare the processes' ratios above. The fresh column is the cost",
    "of the first look at each message (its validation by the schema), which a session pays once, at",
    "`append`, and a stateless server on every request.",
    "",
    ...linearSection(peers),
    `Measured with ${machine(peers.environment)}; load average (1 min) ${load(peers.loadAverage.before)} before`,
    `and ${load(peers.loadAverage.after)} after. Other processes on the machine slow runs at random: compare`,
    "ratios measured in the same run rather than times across runs.",
    "",
  ];
}

/** Part 3's floors and what they say about linearity; nothing for results without floors. */
function linearSection(peers: PeerResults): string[] {
  const floors = peers.floors;
  if (floors === undefined || floors.length === 0) return [];
  const grown = growth(peers.rows, floors);
  return [
    "### Linear?",
    "",
    "Both contenders take more than 10x as long for 10x the messages, and so does code that does",
    "nothing but part of the job. To tell the machine's part from the code's, ours is timed beside two",
    "floors (`bench/floors.ts`) in fresh processes of their own, as many per size as above, that hold",
    "nothing else. Each floor is given every decision in advance (which messages are old tool results):",
    "",
    "- *copy floor*: the job's output and nothing else: the array copied, each old tool result's message",
    "  copied (by object spread, as ours copies) with the notice in place of its output. Checked",
    "  untimed to leave exactly what ours leaves. Timed in alternating rounds with ours (*ours*).",
    "- *read floor*: reads the role, first block and turn of every older message; writes nothing.",
    "  Timed in alternating rounds with *ours again*: `compact` on its own output, which makes every",
    "  decision of the job (each message read, each old result found done) and copies nothing.",
    "",
    "Each row is the process with the median ours/copy floor ratio; the ours again/read floor column",
    "is the median over the processes.",
    "",
    renderMarkdownTable(FLOOR_HEADERS, floorRows(floors)),
    "",
    ...floorRatioLines(floors).map((line) => `- ${line}`),
    "",
    ...(grown === undefined ? [] : [growthLine(grown), ""]),
    "Even the read floor's time per message grows from 10k to 100k: the 10k conversation fits the",
    "CPU's caches and the 100k one does not. The copy floor grows more: each call's output (about 7 MB",
    "at 100k) outlives a young-generation collection, which copies it. The two targets below ask that",
    `ours grow at most ${FLOOR_SLACK}x as much as the floor beside it. The job's is weak: the copies are most of`,
    "its time, and a part that grew with the square of the messages could hide under their growth.",
    "Ours again's is not: without copies, a part of its time that grew with the square of the messages",
    "takes it over the limit once that part is a sixth of its time at 10k (with the read floor growing",
    "about 25x).",
    "",
  ];
}

function storeSection(stores: readonly StoreRow[] | undefined): string[] {
  if (stores === undefined || stores.length === 0) return [];
  return [
    "## Part 4: the stores",
    "",
    "Appends per second to one shared session and to a session per worker, and compactions per",
    "second, through `StoredSession` (`bench/stores.ts`); the file store fsyncs every write.",
    "",
    renderMarkdownTable(STORE_HEADERS, storeRows(stores)),
    "",
  ];
}

/** `bench/README.md`: what the benchmark measures, how to reproduce it, and every table. */
export function benchReadme(input: ReadmeInput): string {
  const { runs, speed, peers, stores, targets, environment } = input;
  const parts = [
    "# Benchmarks",
    "",
    "<!-- Generated by `npm run bench -- --readme` (or `--readme-only`, from bench/results.json): edit bench/readme.ts. -->",
    "",
    "`npm run bench` runs a deterministic, offline benchmark (seeded; no network, no API key) in",
    "parts and writes every number to `bench/results.json`. The measure of record for cost and",
    "retention is the **real runs** part: published agent runs replayed through the library (next-use",
    "retention and dollars against trim-only). Figures from simulated runs are labelled synthetic.",
    "",
    "1. **Trajectories** (synthetic): simulated agent loops with every compaction strategy: billed tokens, peak",
    "   context, requests over the window, prompt-cache reuse, cost and facts kept.",
    "2. **Speed**: the library's own calls (`compact`, `maybeCompact`) at 1k, 10k and 100k messages.",
    "3. **Peers**: `ThresholdCompactor.compact` against the AI SDK's `pruneMessages` and LangChain's",
    "   `trimMessages` doing the same job, side by side, at 1k, 10k and 100k messages.",
    "4. **Stores**: appends and compactions per second through `StoredSession` on each store, with 1",
    "   and 8 workers; Redis and PostgreSQL are real servers the benchmark starts itself.",
    "5. **Dollars** (synthetic, and recorded runs with `--trajectories`): every request billed against a",
    "   modelled prompt cache.",
    "6. **Real runs** (`realruns`): next-use retention and dollars against trim-only on published agent runs.",
    "",
    "## Reproduce",
    "",
    "```sh",
    "npm ci",
    "npm run bench                        # every part (a few minutes on 2 cores)",
    "npm run bench -- --only peers        # one part: trajectories, speed, peers, stores, dollars, realruns, …",
    "npm run bench -- --only realruns     # the real runs (--realdata DIR, default ../shared/realdata)",
    "npm run bench -- --quick             # 50 and 200 steps, 1k and 10k messages",
    "npm run bench -- --trim-budget=600   # also time trimMessages at 100k (one run of minutes)",
    "npm run bench -- --readme            # also rewrite this file and bench/README-summary.md",
    "npm run bench -- --readme-only       # rewrite both from bench/results.json",
    "```",
    "",
    "A part run alone replaces only its own numbers in `bench/results.json`. The trajectories are the",
    "same on every machine; times are not.",
    "",
    "## Machine",
    "",
    `The numbers below: ${machine(environment)}${peers === undefined || machine(peers.environment) === machine(environment) ? "" : `; part 3: ${machine(peers.environment)}`}.`,
    "",
    ...trajectorySection(runs),
    ...speedSection(speed),
    ...peerSection(peers),
    ...storeSection(stores),
  ];
  if (targets.length > 0) parts.push(...targetSection(targets));
  return parts.join("\n");
}

function share(value: number): string {
  return `${(value * 100).toFixed(0)}%`;
}

function trajectoryLine(runs: readonly RunMetrics[]): string | undefined {
  const at = (strategy: string) =>
    runs.find(
      (run) => run.strategy === strategy && run.shape === "short-turns" && run.steps === 500,
    );
  const none = at("none");
  const redact = at("redact");
  const hybrid = at("hybrid");
  if (none === undefined || redact === undefined || hybrid === undefined) return undefined;
  const cut = (run: RunMetrics) => share(1 - run.billedInputTokens / none.billedInputTokens);
  const facts = (run: RunMetrics) => share(run.facts === 0 ? 1 : run.factsKept / run.facts);
  return (
    `Synthetic: over a simulated 500-step agent run (${DEFAULT_SIMULATION_SETTINGS.contextLimit.toLocaleString("en")}-token window), masking old tool output cuts billed input tokens by ` +
    `${cut(redact)} and masking plus summaries (\`HybridCompactor\`) by ${cut(hybrid)}, keeping ${facts(hybrid)} of the planted ` +
    `facts (masking alone: ${facts(redact)}); ${redact.requestsOverWindow + hybrid.requestsOverWindow === 0 ? "no request goes" : "some requests go"} over the window.`
  );
}

function peerSummaryRow(row: PeerRow): string {
  const times = (peer: PeerRow["pruneMessages"] | undefined) =>
    peer === undefined
      ? "not timed (quadratic)"
      : `${formatMs(peer.medianMs)} (${(row.ours.medianMs / peer.medianMs).toFixed(peer.medianMs > 100 * row.ours.medianMs ? 3 : 2)}x)`;
  return `| ${row.messages.toLocaleString("en")} | ${formatMs(row.ours.medianMs)} | ${times(row.pruneMessages)} | ${times(row.trimMessages)} |`;
}

/**
 * A short block (at most {@link SUMMARY_MAX_LINES} lines, no target checks) for the main README,
 * pointing to `bench/README.md` for the rest.
 */
export function readmeSummary(input: ReadmeInput): string {
  const lines = [
    "## Benchmarks",
    "",
    `Measured by \`npm run bench\` (offline, seeded) with ${machine(input.peers?.environment ?? input.environment)}; method, every table and how to reproduce: [bench/README.md](bench/README.md).`,
  ];
  const peers = input.peers?.rows ?? [];
  if (peers.length > 0) {
    lines.push(
      "",
      "| messages | `ThresholdCompactor.compact` | AI SDK `pruneMessages` (ours/theirs) | LangChain `trimMessages` (ours/theirs) |",
      "|---:|---:|---:|---:|",
      ...peers.map(peerSummaryRow),
      "",
      `The same job for all three (tool output older than the last ${KEEP_RECENT_TURNS} turns dropped, those turns kept whole); medians, side by side in one process.`,
    );
  }
  const figures = [realRunsSummaryLine(input.realruns), trajectoryLine(input.runs)].filter(
    (line) => line !== undefined,
  );
  if (figures.length > 0) lines.push("", figures.join(" "));
  if (input.speed.length > 0) {
    const under = input.speed
      .map(
        (row) =>
          `${formatMs(row.maybeCompactUnder.medianMs)} at ${row.messages.toLocaleString("en")}`,
      )
      .join(", ");
    lines.push(
      "",
      `\`maybeCompact()\` under the threshold (nothing to do): ${under} messages of history.`,
    );
  }
  return `${lines.slice(0, SUMMARY_MAX_LINES).join("\n")}\n`;
}
