/** Part 6's targets, table and README section (`bench/stateless.ts` measures). */
import { formatMs, renderTable } from "./format.js";
import type { StatelessRow } from "./stateless.js";
import { CONTENDER_CALLS, type ContenderName, isWarm } from "./stateless-contenders.js";
import type { TargetCheck } from "./targets.js";

/** First sight: at most this many times `pruneMessages` at 10k messages (issue 31). */
export const FIRST_SIGHT_TARGET_RATIO = 2;

/** Warm: at most this many times `pruneMessages` at 10k messages (issue 31). */
export const WARM_TARGET_RATIO = 0.5;

/** The size the targets are judged at. */
const TARGET_SIZE = 10_000;

/** What a row timed: older results timed only the AI SDK's path. */
export const contenderOf = (row: StatelessRow): ContenderName => row.contender ?? "ai-sdk";

/** The ratio a contender's target allows. */
export const targetRatio = (name: ContenderName): number =>
  isWarm(name) ? WARM_TARGET_RATIO : FIRST_SIGHT_TARGET_RATIO;

const LABELS: Record<ContenderName, string> = {
  core: "first sight through the core API (ThresholdCompactor.compact on a deep copy, validation included)",
  warm: "warm: ThresholdCompactor.compact on an array already seen",
  "ai-sdk": "first sight through the AI SDK's stateless path (compactModelMessages)",
  langchain: "first sight through LangChain's stateless path (compactLangChainMessages)",
  anthropic: "first sight through Anthropic's stateless path (compactAnthropicMessages)",
  openai: "first sight through OpenAI Responses' stateless path (compactResponsesInput)",
  gemini: "first sight through Gemini's stateless path (compactGeminiContents)",
  "chat-completions": "first sight through Chat Completions' stateless path (compactChatMessages)",
};

const times = (value: number): string => `${value.toFixed(2)}x`;

/** One target per contender measured at 10k messages, on its median per-round CPU ratio. */
export function statelessTargets(rows: readonly StatelessRow[]): TargetCheck[] {
  return rows
    .filter((row) => row.messages === TARGET_SIZE)
    .map((row) => {
      const name = contenderOf(row);
      const allowed = targetRatio(name);
      const ratio = row.cpu.rounds.median;
      const processes = row.processes?.map((each) => times(each.cpu)).join(", ");
      return {
        target: `${LABELS[name]} at most ${allowed}x pruneMessages at 10k messages`,
        measured: `${times(ratio)} (median per-round CPU ratio${processes === undefined ? "" : `; processes ${processes}`}; ${formatMs(row.cpu.ours.medianMs)} vs ${formatMs(row.cpu.pruneMessages.medianMs)})`,
        pass: ratio <= allowed,
      };
    });
}

/** The table (CPU time; the wall clock's per-round ratio beside it) and the target lines. */
export function statelessReport(rows: readonly StatelessRow[]): string {
  const table = renderTable(
    [
      "contender",
      "messages",
      "ours (CPU)",
      "pruneMessages (CPU)",
      "per-round ratio: median (min-max)",
      "in each process",
      "wall per-round",
      "target",
      "full results ours / prune",
    ],
    rows.map((row) => {
      const name = contenderOf(row);
      const ratio = row.cpu.rounds;
      return [
        name,
        String(row.messages),
        formatMs(row.cpu.ours.medianMs),
        formatMs(row.cpu.pruneMessages.medianMs),
        `${times(ratio.median)} (${times(ratio.min)}-${times(ratio.max)})`,
        row.processes?.map((each) => times(each.cpu)).join(", ") ?? "-",
        times(row.wall.rounds.median),
        row.messages === TARGET_SIZE
          ? `≤${targetRatio(name)}x ${ratio.median <= targetRatio(name) ? "PASS" : "FAIL"}`
          : "-",
        `${row.fullResults.ours} / ${row.fullResults.pruneMessages}`,
      ];
    }),
  );
  const targets = statelessTargets(rows).map(
    (check) => `${check.pass ? "PASS" : "FAIL"}  ${check.target}: ${check.measured}`,
  );
  return [table, ...targets, ""].join("\n");
}

/** Part 6 of bench/README.md: what is timed, how, the table and the targets. */
export function statelessReadme(rows: readonly StatelessRow[]): string {
  const timed = [...new Set(rows.map(contenderOf))];
  return [
    "## Part 6: first sight and warm, beside pruneMessages",
    "",
    "A server that gets the whole history with each request (an HTTP handler, a `prepareStep`",
    "without memory) sees every message for the first time: it checks the untrusted input, converts",
    "and compacts it. Timed beside the AI SDK's `pruneMessages` doing part 3's job (tool output older",
    "than the last 3 turns dropped, the last 3 turns whole), side by side in one process, on part 3's",
    "conversation (`bench/stateless.ts`, `bench/stateless-contenders.ts`):",
    "",
    ...timed.map((name) => `- *${name}*: \`${CONTENDER_CALLS[name]}\``),
    "",
    "Method: each contender and `pruneMessages` run in alternating rounds. Each round first makes",
    "both inputs, untimed: new deep copies for first sight (`pruneMessages` gets a deep copy of its",
    "own), the same arrays for *warm*; then two young-generation collections, untimed, move the",
    "copies out of the young generation, so that neither call pays for moving them (the copy's own",
    "cost, which the issue leaves out). Each run is timed by the process's CPU time and by the wall",
    "clock; the ratio is the contender's time over `pruneMessages`' in the same round, and a row",
    "gives the median of those per-round ratios (101 rounds at 10k messages, after at least 20 and",
    "a second of warm-up). Each contender and size runs in three fresh processes; the row is the",
    "process with the median CPU ratio, and every process's ratio is listed. The targets (issue",
    `31): first sight at most ${FIRST_SIGHT_TARGET_RATIO}x pruneMessages, validation included, through the core API and`,
    `each adapter's stateless path alike; warm at most ${WARM_TARGET_RATIO}x; both at 10k messages.`,
    "",
    "```",
    statelessReport(rows).trimEnd(),
    "```",
    "",
  ].join("\n");
}
