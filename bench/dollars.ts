import {
  AgentSession,
  type AgentSessionOptions,
  type CompactionEvent,
  type ContentBlock,
  HybridCompactor,
  LLMCompactor,
  type LlmClient,
  type LlmRequest,
  type Message,
} from "../src/index.js";
import {
  type ModelPricing,
  PRICING_PRESETS,
  priceUsage,
  type TokenUsage,
} from "../src/pricing/index.js";
import { MockLlmClient } from "../src/testing/index.js";
import { PrefixCache } from "./dollars-cache.js";
import { factsInMessages } from "./facts.js";
import { DEFAULT_SIMULATION_SETTINGS } from "./simulate.js";
import { deterministicSummary } from "./summariser.js";
import type { Trajectory } from "./workload.js";

/**
 * Part 5 of `npm run bench`: what a run costs in dollars at cache prices. Each request is
 * billed against {@link PrefixCache} (reads of the longest byte-identical prefix of the
 * previous request, writes of the rest, at the price set's multipliers); a transcript summary
 * is cold input at the input price; a summary that sends the conversation is billed against
 * the same cache. The agent's own output is the same for every strategy and left out; the
 * summarizer's output is in.
 */

/** The price sets the bench reports: each preset's cache-read multiplier, and a flat 0.1x. */
export const PRICE_SETS: readonly { name: string; pricing: ModelPricing }[] = [
  {
    name: "0.1x flat ($3/$15)",
    pricing: { inputPerMTok: 3, outputPerMTok: 15, cacheReadMultiplier: 0.1 },
  },
  { name: "Haiku 5.5 (0.1x, dearer >100k)", pricing: PRICING_PRESETS["claude-haiku-5-5"] },
  { name: "Sonnet 5.5 (0.05x)", pricing: PRICING_PRESETS["claude-sonnet-5-5"] },
  { name: "Opus 5.5 (0.05x)", pricing: PRICING_PRESETS["claude-opus-5-5"] },
  { name: "Fable 5.1 (0.025x)", pricing: PRICING_PRESETS["claude-fable-5-1"] },
  { name: "GPT-6.1 Sol (0.05x)", pricing: PRICING_PRESETS["gpt-6.1-sol"] },
];

/** What a strategy may build its compactors from. */
export interface DollarStrategyContext {
  /** The deterministic summarizer, billed as a transcript or against the cache. */
  client: LlmClient;
  clock: () => Date;
}

/** One way to run the session, priced. */
export interface DollarStrategy {
  name: string;
  description: string;
  /** Whether its summarizer sends the conversation (reads the cache). @default false */
  cachedSummaries?: boolean;
  /**
   * Whether the session is told the prices (`pricing`): it then runs once per price set, and
   * each column comes from the run that knew that set's prices. @default false
   */
  priced?: boolean;
  options(context: DollarStrategyContext): Partial<AgentSessionOptions>;
}

/** The strategies of part 5: two baselines, the default, and the summarizing setups. */
export const DOLLAR_STRATEGIES: readonly DollarStrategy[] = [
  {
    name: "none",
    description: "no compaction, no last resort (priced only where every request fits)",
    options: () => ({ compactor: false, trimOnOverflow: false }),
  },
  {
    name: "trim",
    description: "compactor: false, only the last resort (oldest dropped above 95%, to 50%)",
    options: () => ({ compactor: false }),
  },
  { name: "default", description: "new AgentSession({ contextLimit })", options: () => ({}) },
  {
    name: "default, priced",
    description:
      "new AgentSession({ contextLimit, pricing }): compacts once a rewrite repays itself at those prices",
    priced: true,
    options: () => ({}),
  },
  {
    name: "llm",
    description: "LLMCompactor, transcript summaries (cold input)",
    options: ({ client, clock }) => ({
      compactor: false,
      llmCompactor: new LLMCompactor(client, { clock }),
    }),
  },
  {
    name: "llm cached",
    description: "LLMCompactor, summaries that send the conversation (read from cache)",
    cachedSummaries: true,
    options: ({ client, clock }) => ({
      compactor: false,
      llmCompactor: new LLMCompactor(client, { clock }),
    }),
  },
  {
    name: "mask+llm",
    description: "HybridCompactor (masking, then summaries), transcript summaries",
    options: ({ client, clock }) => ({ compactor: new HybridCompactor({ client, clock }) }),
  },
  {
    name: "mask+llm cached",
    description: "HybridCompactor, summaries that send the conversation",
    cachedSummaries: true,
    options: ({ client, clock }) => ({ compactor: new HybridCompactor({ client, clock }) }),
  },
  {
    name: "llm cached 0.3→0.1",
    description:
      "price-aware settings: LLMCompactor from 30% of the window down to 10%, keepRecentTurns 1, cached",
    cachedSummaries: true,
    options: ({ client, clock }) => ({
      compactor: false,
      llmCompactor: new LLMCompactor(client, {
        clock,
        threshold: 0.3,
        targetUtilization: 0.1,
        keepRecentTurns: 1,
      }),
    }),
  },
  {
    name: "llm cached, priced",
    description:
      "LLMCompactor down to 10% (threshold 0.75 as the ceiling), keepRecentTurns 1, summaries of up to 1,024 tokens, cached, told the prices",
    cachedSummaries: true,
    priced: true,
    options: ({ client, clock }) => ({
      compactor: false,
      llmCompactor: new LLMCompactor(client, {
        clock,
        threshold: 0.75,
        targetUtilization: 0.1,
        keepRecentTurns: 1,
        maxSummaryTokens: 1024,
      }),
    }),
  },
  {
    name: "mask+llm cached 0.5→0.15",
    description: "price-aware settings: HybridCompactor from 50% of the window down to 15%, cached",
    cachedSummaries: true,
    options: ({ client, clock }) => ({
      compactor: new HybridCompactor({ client, clock, threshold: 0.5, targetUtilization: 0.15 }),
    }),
  },
];

/** Dollars of one run at one price set. */
export interface PricedRun {
  totalUsd: number;
  summarizerUsd: number;
}

/** What one strategy cost and kept over one run. */
export interface DollarRun {
  source: "simulated" | "real";
  /** `short-turns 500`, or the recorded run's file name. */
  workload: string;
  strategy: string;
  requests: number;
  /** Requests above the window (a real API refuses them): `none` is priced only at 0. */
  overWindow: number;
  compactions: number;
  trims: number;
  summarizerCalls: number;
  /** Cache reads over all input billed (the agent's and the summarizer's). */
  cacheReadShare: number;
  /** Summarizer input read from the cache, over all its input. */
  summarizerCacheReadShare: number;
  /** Input tokens billed (every kind), and those read from the cache: all requests, and the summarizer's. */
  tokens: {
    input: number;
    cacheRead: number;
    summarizerInput: number;
    summarizerCacheRead: number;
  };
  /** Dollars at each price set, by name. */
  dollars: Record<string, PricedRun>;
  /** Planted (or touched) and still-in-context counts, by kind. */
  retention: Record<string, { planted: number; kept: number }>;
}

/** Every request of a run, as billed: the agent's and the summarizer's. */
export interface Ledger {
  agent: TokenUsage[];
  summarizer: TokenUsage[];
}

function textOf(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "text") parts.push(block.text);
      else if (block.type === "tool_use") parts.push(JSON.stringify(block.input));
      else if (block.type === "tool_result")
        parts.push(
          typeof block.content === "string" ? block.content : JSON.stringify(block.content),
        );
    }
  }
  return parts.join("\n");
}

const tokensOf = (text: string) => Math.ceil(text.length / 4);

/**
 * The deterministic summarizer (bench/summariser.ts) billed as the bench bills: a transcript
 * request as cold input, a conversation request against `cache`. Its replies carry the usage,
 * as `AnthropicLlmClient`'s do.
 */
export function pricedSummarizer(
  cache: PrefixCache,
  cached: boolean,
  ledger: Ledger,
): MockLlmClient {
  const client = new MockLlmClient({
    acceptsConversation: cached,
    defaultReply: (request: LlmRequest) => {
      const conversation = request.conversation;
      const prompt =
        conversation === undefined ? request.prompt : `${textOf(conversation)}\n${request.prompt}`;
      const text = deterministicSummary({ ...request, prompt });
      const usage: Required<TokenUsage> =
        conversation === undefined
          ? {
              inputTokens: tokensOf(`${request.system ?? ""}${request.prompt}`),
              cacheReadInputTokens: 0,
              cacheCreationInputTokens: 0,
              outputTokens: 0,
            }
          : cache.request(conversation, tokensOf(request.prompt));
      usage.outputTokens = tokensOf(text);
      ledger.summarizer.push(usage);
      client.requests.length = 0;
      return { text, usage };
    },
  });
  return client;
}

/** Prices a ledger at each price set; `fits` false leaves `none`-like runs unpriced (NaN). */
export function priceLedger(ledger: Ledger, fits: boolean): Record<string, PricedRun> {
  const dollars: Record<string, PricedRun> = {};
  for (const { name, pricing } of PRICE_SETS) {
    let agent = 0;
    let summarizer = 0;
    for (const usage of ledger.agent) agent += priceUsage(usage, pricing).totalUsd;
    for (const usage of ledger.summarizer) summarizer += priceUsage(usage, pricing).totalUsd;
    dollars[name] = fits
      ? { totalUsd: agent + summarizer, summarizerUsd: summarizer }
      : { totalUsd: Number.NaN, summarizerUsd: Number.NaN };
  }
  return dollars;
}

/** All input tokens of a list of usages, and those read from the cache. */
function inputTotals(usages: readonly TokenUsage[]): { all: number; read: number } {
  let read = 0;
  let all = 0;
  for (const usage of usages) {
    read += usage.cacheReadInputTokens ?? 0;
    all +=
      usage.inputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheCreationInputTokens ?? 0);
  }
  return { all, read };
}

/** The token counts and cache shares of a ledger, as a {@link DollarRun} reports them. */
export function ledgerTokens(
  ledger: Ledger,
): Pick<DollarRun, "tokens" | "cacheReadShare" | "summarizerCacheReadShare"> {
  const agent = inputTotals(ledger.agent);
  const summarizer = inputTotals(ledger.summarizer);
  const all = agent.all + summarizer.all;
  return {
    tokens: {
      input: all,
      cacheRead: agent.read + summarizer.read,
      summarizerInput: summarizer.all,
      summarizerCacheRead: summarizer.read,
    },
    cacheReadShare: all === 0 ? 0 : (agent.read + summarizer.read) / all,
    summarizerCacheReadShare: summarizer.all === 0 ? 0 : summarizer.read / summarizer.all,
  };
}

/** Counts compactions, trims and failures from a session's events. */
export function eventCounter(): {
  counts: { compactions: number; trims: number; failed: number };
  onEvent: (event: CompactionEvent) => void;
} {
  const counts = { compactions: 0, trims: 0, failed: 0 };
  return {
    counts,
    onEvent: (event) => {
      if (event.type === "compaction_end") counts.compactions += 1;
      else if (event.type === "context_trimmed") counts.trims += 1;
      else if (event.type === "compaction_failed") counts.failed += 1;
    },
  };
}

/** A clock one second a tick, from 2026-01-01, so runs are deterministic. */
export function benchClock(): () => Date {
  let tick = Date.UTC(2026, 0, 1);
  return () => {
    tick += 1000;
    return new Date(tick);
  };
}

/** Runs one simulated trajectory through one strategy, every request billed. */
export async function simulateDollars(
  trajectory: Trajectory,
  strategy: DollarStrategy,
  settings = DEFAULT_SIMULATION_SETTINGS,
): Promise<DollarRun> {
  const cache = new PrefixCache(settings.systemTokens);
  const ledger: Ledger = { agent: [], summarizer: [] };
  const client = pricedSummarizer(cache, strategy.cachedSummaries === true, ledger);
  const clock = benchClock();
  const { counts, onEvent } = eventCounter();
  const session = new AgentSession({
    contextLimit: settings.contextLimit,
    sessionId: `dollars-${strategy.name}`,
    clock,
    onEvent,
    ...strategy.options({ client, clock }),
  });
  let overWindow = 0;
  let last: readonly Message[] = [];
  for (const step of trajectory.steps) {
    if (step.userText !== undefined) session.addUserText(step.userText);
    await session.maybeCompact();
    const messages = session.messages;
    if (cache.tokens(messages) > settings.contextLimit) overWindow += 1;
    const usage = cache.request(messages);
    ledger.agent.push(usage);
    last = messages;
    const content: ContentBlock[] = [{ type: "text", text: step.reasoning }];
    for (const call of step.calls)
      content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
    const reply = session.addAssistant(content);
    session.recordUsage({ ...usage, outputTokens: tokensOf(JSON.stringify(reply.content)) });
    if (step.calls.length > 0) {
      session.addToolResults(
        step.calls.map((call) => ({
          type: "tool_result",
          toolUseId: call.id,
          content: call.output,
          isError: call.isError,
          compactSummary: call.compactSummary,
        })),
      );
    }
  }
  const present = factsInMessages(last);
  const retention: Record<string, { planted: number; kept: number }> = {};
  for (const fact of trajectory.facts) {
    const entry = retention[fact.kind] ?? { planted: 0, kept: 0 };
    retention[fact.kind] = entry;
    entry.planted += 1;
    if (present.has(fact.text)) entry.kept += 1;
  }
  return {
    source: "simulated",
    workload: `${trajectory.shape} ${trajectory.steps.length}`,
    strategy: strategy.name,
    requests: ledger.agent.length,
    overWindow,
    compactions: counts.compactions,
    trims: counts.trims,
    summarizerCalls: ledger.summarizer.length,
    ...ledgerTokens(ledger),
    dollars: priceLedger(ledger, overWindow === 0),
    retention,
  };
}
