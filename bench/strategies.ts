import {
  type AgentSessionOptions,
  HybridCompactor,
  LLMCompactor,
  type LlmClient,
  ThresholdCompactor,
} from "../src/index.js";
import type { Clock } from "../src/testing/index.js";
import { hybrid, llmOnly } from "./summarizing-setups.js";

/** What a strategy may use to build its compactors. */
export interface StrategyContext {
  /** The deterministic summariser. */
  client: LlmClient;
  /** A deterministic clock for summary messages. */
  clock: Clock;
  /** The model's context window, for settings given as a share of it. */
  contextLimit: number;
}

/** `clearAtLeast` of the strategies that use it: 10% of the window (20k tokens of 200k). */
const clearAtLeast = (contextLimit: number) => Math.round(contextLimit / 10);

/** One row of the benchmark: how the session compacts. */
export interface Strategy {
  /** Short name shown in tables and used in `results.json`. */
  name: string;
  /** One line saying what it does. */
  description: string;
  /** Whether it comes from the seed (`seed`) or from "beyond the seed" (`beyond`). */
  origin: "baseline" | "seed" | "beyond";
  /** The session options that select its compactors. */
  options(context: StrategyContext): Pick<AgentSessionOptions, "compactor" | "llmCompactor">;
}

/**
 * The strategies under test. To add one, append an entry: everything else (tables, targets,
 * results.json) picks it up.
 */
export const STRATEGIES: readonly Strategy[] = [
  {
    name: "none",
    description: "no compaction (the baseline; requests beyond the window are counted, not sent)",
    origin: "baseline",
    options: () => ({ compactor: false }),
  },
  {
    name: "default",
    description:
      "`new AgentSession({ contextLimit })` with nothing else (masking tuned on real runs)",
    origin: "beyond",
    options: () => ({}),
  },
  {
    name: "redact",
    description: "ThresholdCompactor, toolCompaction redact, keepRecentTurns 3",
    origin: "seed",
    options: () => ({ compactor: new ThresholdCompactor({ toolCompaction: "redact" }) }),
  },
  {
    name: "summarize",
    description: "ThresholdCompactor, toolCompaction summarize (the tools' compact summaries)",
    origin: "seed",
    options: () => ({ compactor: new ThresholdCompactor({ toolCompaction: "summarize" }) }),
  },
  {
    name: "llm",
    description: "LLMCompactor only: old turns folded into a summary, keepRecentTurns 3",
    origin: "seed",
    options: llmOnly(),
  },
  {
    name: "mask+llm",
    description: "the seed's pair: summarize first, then LLMCompactor if still over 0.75",
    origin: "seed",
    options: ({ client, clock }) => ({
      compactor: new ThresholdCompactor({ toolCompaction: "summarize" }),
      llmCompactor: new LLMCompactor(client, { clock }),
    }),
  },
  {
    name: "tool-uses",
    description: "summarize + keepRecentToolUses 10 (within-turn retention)",
    origin: "beyond",
    options: () => ({
      compactor: new ThresholdCompactor({ toolCompaction: "summarize", keepRecentToolUses: 10 }),
    }),
  },
  {
    name: "tool-uses→50%",
    description:
      "tool-uses + targetUtilization 0.5 + clearAtLeast 10% of the window (hysteresis, fewer rewrites)",
    origin: "beyond",
    options: ({ contextLimit }) => ({
      compactor: new ThresholdCompactor({
        toolCompaction: "summarize",
        keepRecentToolUses: 10,
        targetUtilization: 0.5,
        clearAtLeast: clearAtLeast(contextLimit),
      }),
    }),
  },
  {
    name: "tool-uses+inputs",
    description: "tool-uses→50% + clearToolInputs for edit_file (patches leave with their results)",
    origin: "beyond",
    options: ({ contextLimit }) => ({
      compactor: new ThresholdCompactor({
        toolCompaction: "summarize",
        keepRecentToolUses: 10,
        targetUtilization: 0.5,
        clearAtLeast: clearAtLeast(contextLimit),
        clearToolInputs: ["edit_file"],
      }),
    }),
  },
  {
    name: "llm→50%",
    description: "LLMCompactor with targetUtilization 0.5 (folds inside a long turn too)",
    origin: "beyond",
    options: llmOnly({ targetUtilization: 0.5 }),
  },
  {
    name: "hybrid",
    description: "HybridCompactor defaults: mask to 0.5, summarise only if masking cannot",
    origin: "beyond",
    options: hybrid(),
  },
  {
    name: "hybrid+inputs",
    description: "hybrid + clearToolInputs for edit_file + clearAtLeast 10% of the window",
    origin: "beyond",
    options: ({ client, clock, contextLimit }) => ({
      compactor: new HybridCompactor({
        client,
        clock,
        clearToolInputs: ["edit_file"],
        clearAtLeast: clearAtLeast(contextLimit),
      }),
    }),
  },
];
