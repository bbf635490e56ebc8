import type { AgentSessionOptions } from "../src/index.js";
import {
  BilledSession,
  type DollarRun,
  type DollarStrategyContext,
  factRetention,
  tokensOf,
} from "./dollars-billing.js";
import { answerStep, openStep } from "./sim-step.js";
import { DEFAULT_SIMULATION_SETTINGS } from "./simulate.js";
import { hybrid, llmOnly } from "./summarizing-setups.js";
import type { Trajectory } from "./workload.js";

/**
 * Part 5 of `npm run bench`: what a run costs in dollars at cache prices. Each request is
 * billed against {@link PrefixCache} (reads of the longest byte-identical prefix of the
 * previous request, writes of the rest, at the price set's multipliers); a transcript summary
 * is cold input at the input price; a summary that sends the conversation is billed against
 * the same cache. The agent's own output is the same for every strategy and left out; the
 * summarizer's output is in.
 */

export { PRICE_SETS } from "./dollars-billing.js";

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
    options: llmOnly(),
  },
  {
    name: "llm cached",
    description: "LLMCompactor, summaries that send the conversation (read from cache)",
    cachedSummaries: true,
    options: llmOnly(),
  },
  {
    name: "mask+llm",
    description: "HybridCompactor (masking, then summaries), transcript summaries",
    options: hybrid(),
  },
  {
    name: "mask+llm cached",
    description: "HybridCompactor, summaries that send the conversation",
    cachedSummaries: true,
    options: hybrid(),
  },
  {
    name: "llm cached 0.3→0.1",
    description:
      "price-aware settings: LLMCompactor from 30% of the window down to 10%, keepRecentTurns 1, cached",
    cachedSummaries: true,
    options: llmOnly({ threshold: 0.3, targetUtilization: 0.1, keepRecentTurns: 1 }),
  },
  {
    name: "llm cached, priced",
    description:
      "LLMCompactor down to 10% (threshold 0.75 as the ceiling), keepRecentTurns 1, summaries of up to 1,024 tokens, cached, told the prices",
    cachedSummaries: true,
    priced: true,
    options: llmOnly({
      threshold: 0.75,
      targetUtilization: 0.1,
      keepRecentTurns: 1,
      maxSummaryTokens: 1024,
    }),
  },
  {
    name: "mask+llm cached 0.5→0.15",
    description: "price-aware settings: HybridCompactor from 50% of the window down to 15%, cached",
    cachedSummaries: true,
    options: hybrid({ threshold: 0.5, targetUtilization: 0.15 }),
  },
];

/** Runs one simulated trajectory through one strategy, every request billed. */
export async function simulateDollars(
  trajectory: Trajectory,
  strategy: DollarStrategy,
  settings = DEFAULT_SIMULATION_SETTINGS,
): Promise<DollarRun> {
  const billed = new BilledSession({
    ...settings,
    sessionId: `dollars-${strategy.name}`,
    cachedSummaries: strategy.cachedSummaries === true,
    options: strategy.options,
  });
  const { session } = billed;
  for (const step of trajectory.steps) {
    const { usage } = billed.bill(await openStep(session, step));
    answerStep(session, step, (reply) => ({
      ...usage,
      outputTokens: tokensOf(JSON.stringify(reply.content)),
    }));
  }
  return billed.result({
    source: "simulated",
    workload: `${trajectory.shape} ${trajectory.steps.length}`,
    strategy: strategy.name,
    retention: factRetention(trajectory, billed.last),
  });
}
