import * as z from "zod/mini";
import type { AsyncCompactor, Compactor } from "../core/compactor.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import { HybridCompactor, type HybridCompactorOptions } from "./hybrid-compactor.js";
import { LLMCompactor, type LLMCompactorConfig } from "./llm-compactor.js";
import { type CompactionConfig, ThresholdCompactor } from "./threshold-compactor.js";

/** Selects a compaction strategy and its options, for `createCompactor`. */
export type CompactorType =
  | { type: "threshold"; config?: Partial<CompactionConfig> }
  | { type: "llm"; config?: Partial<LLMCompactorConfig> }
  | { type: "hybrid"; config?: Partial<HybridCompactorOptions> };

const CompactorTypeSchema = z.strictObject({
  type: z.enum(["threshold", "llm", "hybrid"], {
    error: 'must be "threshold", "llm" or "hybrid"',
  }),
  config: z.exactOptional(z.record(z.string(), z.unknown())),
});

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
  parseOrThrow(CompactorTypeSchema, type, "CompactorType");
  if (type.type === "threshold") return new ThresholdCompactor(type.config ?? {});
  if (llmClient === undefined) {
    throw new ValidationError("CompactorType", [
      { path: ["llmClient"], message: `an LlmClient is required for type "${type.type}"` },
    ]);
  }
  if (type.type === "hybrid") return new HybridCompactor({ ...type.config, client: llmClient });
  return new LLMCompactor(llmClient, type.config ?? {});
}
