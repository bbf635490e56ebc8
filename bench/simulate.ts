import { estimateMessageTokens } from "../src/core/message-memo.js";
import { AgentSession, type CompactionEvent, type Message } from "../src/index.js";
import { factsInMessages } from "./facts.js";
import { answerStep, openStep } from "./sim-step.js";
import type { Strategy } from "./strategies.js";
import { createSummariser } from "./summariser.js";
import type { FactKind, Trajectory } from "./workload.js";

/** Prices of the simulated provider, per million tokens (Claude Sonnet list prices). */
export const PRICES = Object.freeze({
  inputPerMTok: 3,
  outputPerMTok: 15,
  /** Multiplier of a prefix-cache read. */
  cacheRead: 0.1,
  /** Multiplier of a prefix-cache write. */
  cacheWrite: 1.25,
});

/** The fixed simulation settings. */
export interface SimulationSettings {
  /** The model's context window. @default 200000 */
  contextLimit: number;
  /** Tokens of the system prompt and tool definitions sent with every request. @default 4000 */
  systemTokens: number;
}

/** The defaults of {@link SimulationSettings}. */
export const DEFAULT_SIMULATION_SETTINGS: Readonly<SimulationSettings> = Object.freeze({
  contextLimit: 200_000,
  systemTokens: 4000,
});

/** What one strategy did over one trajectory. */
export interface RunMetrics {
  strategy: string;
  shape: Trajectory["shape"];
  steps: number;
  requests: number;
  /** Input tokens of every agent request plus the summariser's input and output. */
  billedInputTokens: number;
  /** Input tokens of the agent's requests alone. */
  requestTokens: number;
  summariserCalls: number;
  summariserInputTokens: number;
  summariserOutputTokens: number;
  /** Summariser tokens as a share of `billedInputTokens`. */
  summariserShare: number;
  peakContext: number;
  finalContext: number;
  requestsOverWindow: number;
  /** Compactions that changed the conversation, by stage. */
  compactions: number;
  /** Compactions that changed the conversation, by strategy (`threshold`, `llm`, `hybrid`, …). */
  compactionsByStrategy: Record<string, number>;
  /** Times the session's last resort (`trimOnOverflow`) removed the oldest messages. */
  trims: number;
  failedCompactions: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cache reads as a share of agent request tokens. */
  cacheHitRatio: number;
  /** Requests whose cached prefix ended before the previous request's end (a rewrite). */
  prefixBreaks: number;
  /** Agent requests at cache prices plus summariser calls at list prices, in USD. */
  costUsd: number;
  facts: number;
  /** Planted facts present verbatim in the final request. */
  factsKept: number;
  /** Planted facts in the final request or handed to the summariser at some point. */
  factsKeptOrHanded: number;
  factsKeptByKind: Record<FactKind, { planted: number; kept: number }>;
  /** Planted facts in the final request or recoverable through recall (the session's archive). */
  factsRecoverable: number;
  /** Planted facts shown to the summariser at some point. */
  factsShownToSummariser: number;
  /** Characters of the session's archive (its records as JSON) at the end. */
  archiveChars: number;
}

/**
 * Runs one agent loop: before each request `maybeCompact()`, then the request is built from
 * `session.messages`, priced against a simulated prefix cache, and the model's usage is
 * reported from the local estimate plus the fixed system/tools overhead.
 */
export async function simulate(
  trajectory: Trajectory,
  strategy: Strategy,
  settings: SimulationSettings = DEFAULT_SIMULATION_SETTINGS,
): Promise<RunMetrics> {
  const { client, ledger } = createSummariser();
  let tick = Date.UTC(2026, 0, 1);
  const clock = () => {
    tick += 1000;
    return new Date(tick);
  };
  const counts = { compactions: 0, failed: 0, trims: 0 };
  const byStrategy: Record<string, number> = {};
  const onEvent = (event: CompactionEvent) => {
    if (event.type === "compaction_failed") counts.failed += 1;
    if (event.type === "context_trimmed") counts.trims += 1;
    if (event.type !== "compaction_end") return;
    const { result } = event;
    const changed =
      result.toolResultsSummarized + result.toolResultsRedacted + result.turnsCompacted > 0;
    if (!changed) return;
    counts.compactions += 1;
    byStrategy[event.strategy] = (byStrategy[event.strategy] ?? 0) + 1;
  };
  const session = new AgentSession({
    contextLimit: settings.contextLimit,
    sessionId: `bench-${strategy.name}`,
    clock,
    onEvent,
    // Every strategy but the baseline runs with the session's last resort, as we recommend.
    trimOnOverflow: strategy.origin !== "baseline",
    ...strategy.options({ client, clock, contextLimit: settings.contextLimit }),
  });

  let previous: readonly Message[] = [];
  let requestTokens = 0;
  let peakContext = 0;
  let finalContext = 0;
  let overWindow = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let prefixBreaks = 0;
  let requests = 0;
  for (const step of trajectory.steps) {
    const messages = await openStep(session, step);
    let tokens = settings.systemTokens;
    let prefix = requests === 0 ? 0 : settings.systemTokens;
    let shared = 0;
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      const messageTokens = estimateMessageTokens(message);
      tokens += messageTokens;
      if (shared === index && message === previous[index]) {
        prefix += messageTokens;
        shared += 1;
      }
    }
    if (shared < previous.length) prefixBreaks += 1;
    requests += 1;
    requestTokens += tokens;
    peakContext = Math.max(peakContext, tokens);
    finalContext = tokens;
    if (tokens > settings.contextLimit) overWindow += 1;
    cacheRead += prefix;
    cacheWrite += tokens - prefix;
    previous = messages.slice();

    answerStep(session, step, (reply) => ({
      inputTokens: 0,
      cacheReadInputTokens: prefix,
      cacheCreationInputTokens: tokens - prefix,
      outputTokens: estimateMessageTokens(reply),
    }));
  }

  const present = factsInMessages(previous);
  const factsKeptByKind = {
    id: { planted: 0, kept: 0 },
    path: { planted: 0, kept: 0 },
    number: { planted: 0, kept: 0 },
    constraint: { planted: 0, kept: 0 },
  };
  let factsKept = 0;
  let factsKeptOrHanded = 0;
  for (const fact of trajectory.facts) {
    const kept = present.has(fact.text);
    factsKeptByKind[fact.kind].planted += 1;
    if (kept) {
      factsKept += 1;
      factsKeptByKind[fact.kind].kept += 1;
    }
    if (kept || ledger.handed.has(fact.text)) factsKeptOrHanded += 1;
  }

  // Everything compaction removed is in the archive, and every archived record is reachable
  // from a handle the conversation names (test/properties/archive-recall.property.test.ts).
  const archiveText = JSON.stringify(session.toJSON().archive?.records ?? []);
  const archived = factsInMessages([
    {
      role: "user",
      id: "a",
      sessionId: "a",
      turnId: { owner: "u", number: 0 },
      createdAt: new Date(0),
      content: [{ type: "text", text: archiveText.replaceAll("\\n", "\n") }],
    },
  ]);
  let factsRecoverable = 0;
  let factsShownToSummariser = 0;
  for (const fact of trajectory.facts) {
    if (present.has(fact.text) || archived.has(fact.text)) factsRecoverable += 1;
    if (ledger.handed.has(fact.text)) factsShownToSummariser += 1;
  }

  const summariserTokens = ledger.inputTokens + ledger.outputTokens;
  const billedInputTokens = requestTokens + summariserTokens;
  const costUsd =
    ((cacheRead * PRICES.cacheRead + cacheWrite * PRICES.cacheWrite + ledger.inputTokens) *
      PRICES.inputPerMTok +
      ledger.outputTokens * PRICES.outputPerMTok) /
    1e6;
  return {
    strategy: strategy.name,
    shape: trajectory.shape,
    steps: trajectory.steps.length,
    requests,
    billedInputTokens,
    requestTokens,
    summariserCalls: ledger.calls,
    summariserInputTokens: ledger.inputTokens,
    summariserOutputTokens: ledger.outputTokens,
    summariserShare: billedInputTokens === 0 ? 0 : summariserTokens / billedInputTokens,
    peakContext,
    finalContext,
    requestsOverWindow: overWindow,
    compactions: counts.compactions,
    compactionsByStrategy: byStrategy,
    trims: counts.trims,
    failedCompactions: counts.failed,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    cacheHitRatio: requestTokens === 0 ? 0 : cacheRead / requestTokens,
    prefixBreaks,
    costUsd,
    facts: trajectory.facts.length,
    factsKept,
    factsKeptOrHanded,
    factsKeptByKind,
    factsRecoverable,
    factsShownToSummariser,
    archiveChars: archiveText.length,
  };
}
