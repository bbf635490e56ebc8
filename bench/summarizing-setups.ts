import {
  type AgentSessionOptions,
  HybridCompactor,
  type HybridCompactorOptions,
  LLMCompactor,
  type LLMCompactorOptions,
  type LlmClient,
} from "../src/index.js";

/** What a summarizing setup is built from: the bench's deterministic summarizer and clock. */
export interface SummarizerContext {
  client: LlmClient;
  clock: () => Date;
}

/** Session options of a summarizing setup, built from the run's summarizer and clock. */
export type SummarizingSetup = (context: SummarizerContext) => Partial<AgentSessionOptions>;

/** `LLMCompactor` alone (no threshold compactor), with `settings`. */
export function llmOnly(
  settings: Partial<Omit<LLMCompactorOptions, "clock">> = {},
): SummarizingSetup {
  return ({ client, clock }) => ({
    compactor: false,
    llmCompactor: new LLMCompactor(client, { clock, ...settings }),
  });
}

/** `HybridCompactor` (masking, then summaries) as the compactor, with `settings`. */
export function hybrid(
  settings: Partial<Omit<HybridCompactorOptions, "client" | "clock">> = {},
): SummarizingSetup {
  return ({ client, clock }) => ({
    compactor: new HybridCompactor({ client, clock, ...settings }),
  });
}
