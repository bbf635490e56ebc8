import { renderMarkdownTable } from "./format.js";
import { speedTable, TRAJECTORY_HEADERS, targetLines, trajectoryRows } from "./report.js";
import { DEFAULT_SIMULATION_SETTINGS, type RunMetrics } from "./simulate.js";
import type { SpeedRow } from "./speed.js";
import { STRATEGIES } from "./strategies.js";
import type { TargetCheck } from "./targets.js";

/** What the README section is built from. */
export interface ReadmeInput {
  runs: readonly RunMetrics[];
  speed: readonly SpeedRow[];
  targets: readonly TargetCheck[];
  environment: { node: string; cpus: number; cpuModel: string };
}

function trajectoryTable(runs: readonly RunMetrics[], shape: string, steps: number): string {
  const all = runs.filter((run) => run.shape === shape);
  const rows = trajectoryRows(all).filter((_, index) => all[index]!.steps === steps);
  return renderMarkdownTable(
    TRAJECTORY_HEADERS.slice(1),
    rows.map((row) => row.slice(1)),
  );
}

/** The README's Benchmarks section, from one run of `npm run bench -- --readme`. */
export function readmeSection(input: ReadmeInput): string {
  const { runs, speed, targets, environment } = input;
  const window = DEFAULT_SIMULATION_SETTINGS.contextLimit.toLocaleString("en");
  const steps = [...new Set(runs.map((run) => run.steps))];
  const speedRows = speedTable(speed);
  const parts = [
    "## Benchmarks",
    "",
    "`npm run bench` runs a deterministic, offline benchmark (seeded; no network, no key) and writes",
    "`bench/results.json`; `npm run bench -- --readme` also rewrites this section. It takes about two",
    "minutes on 2 cores.",
    "",
    `**Trajectories.** A simulated agent loop calls \`maybeCompact()\` before each request, builds the request from`,
    `\`session.messages\` and reports the model's usage (the local estimate plus ${DEFAULT_SIMULATION_SETTINGS.systemTokens} tokens of system prompt and`,
    `tools). Tool outputs are heavy-tailed (log-normal, median 1.2k tokens, p99 30k, capped at 40k) and make up`,
    `~86% of the tokens; a ${window}-token window. Two workloads: *short turns* (a user message every 2–12`,
    "steps) and *one long turn* (one request answered by every step). The summariser is a deterministic",
    "`MockLlmClient` that keeps every id, path, value and user constraint it is handed, newest first, up",
    "to `maxSummaryTokens`. Columns: billed input tokens over the run (summariser input and output",
    "included) and the change against no compaction; the summariser's share; peak context; requests",
    "over the window (sent anyway and counted; a real API would refuse them); compactions; trims (every",
    "strategy but `none` runs with the session's last resort `trimOnOverflow`, which removes the oldest",
    "messages, handed to the app in an event, when compaction leaves the context above the window); the share of",
    "input read from a simulated prefix cache and the requests that rewrote part of it; the cost at",
    "$3/MTok input with cache reads at 0.1x and writes at 1.25x (summariser at list price); the share",
    "of planted facts (ids, paths, numbers, user constraints) present in the final request, and present",
    "or handed to the summariser at some point.",
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
  if (speed.length > 0) {
    parts.push(
      "**Speed.** Medians of repeated runs on conversations of four tool calls per turn; `(Nx)` is the",
      "time over the floor `messages.map(m => ({ ...m, content: [...m.content] }))`. `maybeCompact`",
      "under the threshold does nothing; over it, each run has one newly old turn to mask (steady state).",
      "",
      renderMarkdownTable(speedRows.headers, speedRows.rows),
      "",
    );
  }
  parts.push(
    "**Targets** (read from this run):",
    "",
    "```",
    ...targetLines(targets),
    "```",
    "",
    `Measured with Node ${environment.node} on ${environment.cpus} × ${environment.cpuModel}.`,
    "",
  );
  return parts.join("\n");
}
