import type { AsyncCompactor, Compactor } from "../core/compactor.js";
import { ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import { type CompactorType, thresholdFromType } from "./compactor-type.js";
import { HybridCompactor } from "./hybrid-compactor.js";
import { LLMCompactor } from "./llm-compactor.js";
import type { CompactionConfig, ThresholdCompactor } from "./threshold-compactor.js";

export type { CompactorType } from "./compactor-type.js";

/**
 * Builds the compactor a {@link CompactorType} names. `llm` and `hybrid` need an `LlmClient`.
 *
 * @example
 * const compactor = createCompactor({ type: "llm", config: { keepRecentTurns: 2 } }, client);
 */
export function createCompactor(type: {
  type: "threshold";
  config?: Partial<CompactionConfig>;
}): ThresholdCompactor;
export function createCompactor(
  type: CompactorType,
  llmClient?: LlmClient,
): Compactor | AsyncCompactor;
export function createCompactor(
  type: CompactorType = { type: "threshold" },
  llmClient?: LlmClient,
): Compactor | AsyncCompactor {
  const threshold = thresholdFromType(type);
  if (threshold !== undefined) return threshold;
  if (llmClient === undefined) {
    throw new ValidationError("CompactorType", [
      { path: ["llmClient"], message: `an LlmClient is required for type "${type.type}"` },
    ]);
  }
  if (type.type === "hybrid") return new HybridCompactor({ ...type.config, client: llmClient });
  return new LLMCompactor(llmClient, type.config ?? {});
}
