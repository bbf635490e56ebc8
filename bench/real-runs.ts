import { existsSync } from "node:fs";
import { basename, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { fromAnthropicMessages, toAnthropicMessages } from "../src/anthropic/index.js";
import { AgentSession, LLMCompactor } from "../src/index.js";
import { CompactionMemory } from "../src/store/index.js";
import { extractiveClient } from "./extractive-summarizer.js";
import { hasToken, type NextUseReferences, nextUseReferences, resultText } from "./next-use.js";
import { type Bill, PrefixBill } from "./prefix-bill.js";
import { asBlocks, type RecordedRun, readRun, runsIn } from "./replay.js";
import { apiProblems, ThinkingBindings, type WireMessage } from "./request-checks.js";
import { requestTexts } from "./request-texts.js";
import { type ReplayedLoop, StatelessServer } from "./stateless-server.js";

/**
 * The real-runs part (issue 30): published agent runs (`../shared/realdata`) replayed through
 * the library as an agent loop runs (before each recorded reply `maybeCompact()`, then the
 * request from `toAnthropicMessages(session.messages)`, then the recorded reply and tool
 * results), each strategy against trim-only: next-use retention (`bench/next-use.ts`), dollars
 * against a prefix cache (`bench/prefix-bill.ts`), and every request checked for the window,
 * the API's pairing rules and preserved thinking. The measure is the one of
 * `../shared/realdata/replay.mjs`, whose totals these match.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Where the runs are by default: `../shared/realdata` from the repository's root. */
export const DEFAULT_REALDATA = fileURLToPath(new URL("../../shared/realdata", import.meta.url));
/** The window the runs are replayed in by default. */
export const DEFAULT_REAL_RUN_WINDOW = 64_000;

/** What a preset's session is built from. */
export interface RealRunSetup {
  contextLimit: number;
  /** The run's bill: a summarizer bills its requests on it. */
  bill: PrefixBill;
  clock: () => Date;
}

/** A strategy the part replays: a session as the README recommends setting it up. */
export interface RealRunPreset {
  /** As printed. */
  name: string;
  description: string;
  /** Held to issue 30's dollar and retention targets (trim-only is the baseline). */
  targets: boolean;
  session: (setup: RealRunSetup) => ReplayedLoop;
}

/** The strategies, `trim` (the baseline) first: one row per preset the README recommends. */
export const REAL_RUN_PRESETS: readonly RealRunPreset[] = [
  {
    name: "trim",
    description: "`compactor: false`: only the session's last resort (the oldest messages dropped)",
    targets: false,
    session: ({ contextLimit, clock }) =>
      new AgentSession({ contextLimit, clock, compactor: false }),
  },
  {
    name: "default",
    description: "`new AgentSession({ contextLimit })`",
    targets: true,
    session: ({ contextLimit, clock }) => new AgentSession({ contextLimit, clock }),
  },
  {
    name: "summaries",
    description:
      "`new AgentSession({ contextLimit, llmCompactor: new LLMCompactor(client, { threshold: 0.72, maxSummaryTokens: 512 }) })`, the client sending the conversation (`acceptsConversation`), here the extractive stand-in",
    targets: true,
    session: ({ contextLimit, clock, bill }) =>
      new AgentSession({
        contextLimit,
        clock,
        llmCompactor: new LLMCompactor(extractiveClient(bill, { acceptsConversation: true }), {
          threshold: 0.72,
          maxSummaryTokens: 512,
        }),
      }),
  },
  {
    name: "stateless",
    description:
      "a stateless server sent the whole history with each request: `compactAnthropicMessages(history, { contextLimit })` before each",
    targets: false,
    session: ({ contextLimit, clock }) => new StatelessServer(contextLimit, clock),
  },
  {
    name: "stateless+memory",
    description:
      "the same with a `CompactionMemory` (`compactAnthropicMessages(history, { contextLimit, memory })`, one memory per run)",
    targets: true,
    session: ({ contextLimit, clock }) =>
      new StatelessServer(contextLimit, clock, new CompactionMemory()),
  },
];

/** What the part counts of a run's requests (summed over runs in the totals). */
export interface RealRunCounts {
  requests: number;
  /** Requests above the window. */
  overWindow: number;
  /** Requests the Messages API would reject (pairing, first role, empty content). */
  invalid: number;
  /** Requests with a thinking block sent after a prefix other than the one it was written after. */
  prefixFailures: number;
  /** `maybeCompact` calls that changed the conversation. */
  compactions: number;
  /** `maybeCompact` calls that reported a failed compactor. */
  errors: number;
  /** Next-use references over the run's requests, those present, those present outside bare lists. */
  references: number;
  kept: number;
  strict: number;
}

/** The keys of {@link RealRunCounts}. */
export const REAL_RUN_COUNTS = [
  "requests",
  "overWindow",
  "invalid",
  "prefixFailures",
  "compactions",
  "errors",
  "references",
  "kept",
  "strict",
] as const satisfies readonly (keyof RealRunCounts)[];

/** One run replayed through one strategy. */
export interface RealRunResult extends RealRunCounts {
  run: string;
  strategy: string;
  peakTokens: number;
  bill: Bill;
}

/** A clock 1 ms a tick from 2026-01-01: deterministic, and a replay's requests all fall in one cache lifetime. */
function steppingClock(): () => Date {
  let tick = Date.UTC(2026, 0, 1);
  return () => {
    tick += 1;
    return new Date(tick);
  };
}

const tokensOf = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);

/** Each tool call id's recorded result text. */
function recordedResults(run: RecordedRun): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of run.messages)
    for (const block of asBlocks(message.content))
      if (block["type"] === "tool_result")
        results.set(String(block["tool_use_id"]), resultText(block["content"]));
  return results;
}

/** The checks and retention of one run's requests, request by request. */
class RequestMeasure {
  readonly counts = { requests: 0, overWindow: 0, invalid: 0, prefixFailures: 0, peakTokens: 0 };
  readonly retention = { references: 0, kept: 0, strict: 0 };
  readonly thinking = new ThinkingBindings();
  readonly #originals: Map<string, string>;

  constructor(
    readonly run: RecordedRun,
    readonly references: NextUseReferences,
    readonly contextLimit: number,
  ) {
    this.#originals = recordedResults(run);
  }

  get system(): string {
    return this.run.system ?? "";
  }

  /** Measures the next request; returns its tokens. */
  request(request: readonly WireMessage[]): number {
    const tokens = tokensOf(request) + Math.ceil(this.system.length / 4);
    const counts = this.counts;
    counts.peakTokens = Math.max(counts.peakTokens, tokens);
    if (tokens > this.contextLimit) counts.overWindow += 1;
    if (apiProblems(request).length > 0) counts.invalid += 1;
    if (this.thinking.failures(request, this.system) > 0) counts.prefixFailures += 1;
    const used = this.references.perRequest[counts.requests] ?? [];
    if (used.length > 0) {
      const texts = requestTexts(this.system, request, this.#originals);
      for (const { text } of used) {
        const kept = hasToken(texts.full, text);
        this.retention.references += 1;
        if (kept) this.retention.kept += 1;
        if (kept && hasToken(texts.strict, text)) this.retention.strict += 1;
      }
    }
    counts.requests += 1;
    return tokens;
  }
}

/** Replays one run through one preset with a window of `contextLimit` tokens. */
export async function replayRealRun(
  name: string,
  run: RecordedRun,
  references: NextUseReferences,
  preset: RealRunPreset,
  contextLimit: number,
): Promise<RealRunResult> {
  const clock = steppingClock();
  const measure = new RequestMeasure(run, references, contextLimit);
  const bill = new PrefixBill(measure.system);
  const session = preset.session({ contextLimit, bill, clock });
  const messages = fromAnthropicMessages(run.messages, { sessionId: session.sessionId, clock });
  let compactions = 0;
  let errors = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant" && messages[index - 1]?.role !== "assistant") {
      const report = await session.maybeCompact();
      if (report.compacted) compactions += 1;
      if (report.error !== undefined) errors += 1;
      const request = toAnthropicMessages(session.messages) as WireMessage[];
      const inputTokens = measure.request(request);
      bill.agentRequest(request);
      session.recordUsage({ inputTokens, outputTokens: 0 });
    }
    session.append(message);
    if (message.role === "assistant")
      measure.thinking.bind(toAnthropicMessages(session.messages) as WireMessage[], measure.system);
  }
  const { retention, counts } = measure;
  return {
    run: name,
    strategy: preset.name,
    ...counts,
    compactions,
    errors,
    ...retention,
    bill: { ...bill.bill },
  };
}

/** What the part writes to `results.json` under `realruns`. */
export interface RealRunsResults {
  /** The runs' folder, relative to the repository's root. */
  directory: string;
  window: number;
  strategies: { name: string; description: string; targets: boolean }[];
  /** Each run's requests and next-use references (the same for every strategy). */
  runs: { run: string; requests: number; references: number; candidates: number }[];
  results: RealRunResult[];
}

/** What {@link replayRealRuns} needs. */
export interface RealRunsOptions {
  directory: string;
  window: number;
  presets?: readonly RealRunPreset[];
  progress?: (text: string) => void;
}

/** Replays every `*.json` run of the directory through every preset. */
export async function replayRealRuns(options: RealRunsOptions): Promise<RealRunsResults> {
  const { directory, window, presets = REAL_RUN_PRESETS, progress = () => {} } = options;
  if (!existsSync(directory)) throw new Error(`No real runs at ${directory} (--realdata DIR)`);
  const runs: RealRunsResults["runs"] = [];
  const results: RealRunResult[] = [];
  for (const file of runsIn(directory)) {
    const name = basename(file, ".json");
    const run = readRun(file);
    const references = nextUseReferences(run);
    progress(`${name}:`);
    for (const preset of presets) {
      results.push(await replayRealRun(name, run, references, preset, window));
      progress(` ${preset.name}`);
    }
    progress("\n");
    const requests = results.at(-1)?.requests ?? 0;
    runs.push({
      run: name,
      requests,
      references: references.total,
      candidates: references.candidates,
    });
  }
  const strategies = presets.map(({ name, description, targets }) => ({
    name,
    description,
    targets,
  }));
  return { directory: relative(ROOT, directory) || ".", window, strategies, runs, results };
}
