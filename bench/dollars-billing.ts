import {
  AgentSession,
  type AgentSessionOptions,
  type CompactionEvent,
  type LlmClient,
  type LlmRequest,
  type Message,
} from "../src/index.js";
import {
  type ModelPricing,
  PRICING_PRESETS,
  priceUsage,
  type TokenUsage,
} from "../src/models/index.js";
import { MockLlmClient } from "../src/testing/index.js";
import { PrefixCache } from "./dollars-cache.js";
import { factsInMessages } from "./facts.js";
import { deterministicSummary } from "./summariser.js";
import type { Trajectory } from "./workload.js";

/**
 * How part 5 bills a run: the price sets, the ledger of every request, the priced summarizer,
 * and {@link BilledSession}, the session whose every request is billed against the prefix cache.
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

/** Tokens of a text, at four characters a token. */
export const tokensOf = (text: string) => Math.ceil(text.length / 4);

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

/** How a {@link BilledSession} is set up: its window, its system prompt, its compactors. */
export interface BilledSessionSetup {
  contextLimit: number;
  /** Tokens of the system prompt and tools every request starts with. */
  systemTokens: number;
  sessionId: string;
  /** Whether the summarizer sends the conversation (billed against the cache). */
  cachedSummaries: boolean;
  options(context: DollarStrategyContext): Partial<AgentSessionOptions>;
}

/** A session whose every request is billed against the prefix cache, as parts 5 and 5b run it. */
export class BilledSession {
  readonly ledger: Ledger = { agent: [], summarizer: [] };
  readonly clock = benchClock();
  readonly counts: ReturnType<typeof eventCounter>["counts"];
  readonly session: AgentSession;
  /** Requests billed above the window. */
  overWindow = 0;
  /** The messages of the last request billed. */
  last: readonly Message[] = [];
  readonly #cache: PrefixCache;
  readonly #contextLimit: number;

  constructor(setup: BilledSessionSetup) {
    this.#cache = new PrefixCache(setup.systemTokens);
    this.#contextLimit = setup.contextLimit;
    const client = pricedSummarizer(this.#cache, setup.cachedSummaries, this.ledger);
    const { counts, onEvent } = eventCounter();
    this.counts = counts;
    this.session = new AgentSession({
      contextLimit: setup.contextLimit,
      sessionId: setup.sessionId,
      clock: this.clock,
      onEvent,
      ...setup.options({ client, clock: this.clock }),
    });
  }

  /** Bills one request of `messages`: its usage (output aside) and its tokens. */
  bill(messages: readonly Message[]): { usage: Required<TokenUsage>; tokens: number } {
    const tokens = this.#cache.tokens(messages);
    if (tokens > this.#contextLimit) this.overWindow += 1;
    const usage = this.#cache.request(messages);
    this.ledger.agent.push(usage);
    this.last = messages;
    return { usage, tokens };
  }

  /** The run's {@link DollarRun}: its counts, tokens and dollars, with the retention given. */
  result(run: Pick<DollarRun, "source" | "workload" | "strategy" | "retention">): DollarRun {
    return {
      source: run.source,
      workload: run.workload,
      strategy: run.strategy,
      requests: this.ledger.agent.length,
      overWindow: this.overWindow,
      compactions: this.counts.compactions,
      trims: this.counts.trims,
      summarizerCalls: this.ledger.summarizer.length,
      ...ledgerTokens(this.ledger),
      dollars: priceLedger(this.ledger, this.overWindow === 0),
      retention: run.retention,
    };
  }
}

/** The planted facts of `trajectory` still in `messages`, by kind. */
export function factRetention(
  trajectory: Trajectory,
  messages: readonly Message[],
): Record<string, { planted: number; kept: number }> {
  const present = factsInMessages(messages);
  const retention: Record<string, { planted: number; kept: number }> = {};
  for (const fact of trajectory.facts) {
    const entry = retention[fact.kind] ?? { planted: 0, kept: 0 };
    retention[fact.kind] = entry;
    entry.planted += 1;
    if (present.has(fact.text)) entry.kept += 1;
  }
  return retention;
}
