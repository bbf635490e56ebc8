import { z } from "zod";
import type { AsyncCompactor, Compactor } from "../core/compactor.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import { LLMCompactor, type LLMCompactorConfig } from "./llm-compactor.js";
import { type CompactionConfig, ThresholdCompactor } from "./threshold-compactor.js";

/** Selects a compaction strategy and its configuration. @default { type: "threshold" } */
export type CompactorType =
  | { type: "threshold"; config?: Partial<CompactionConfig> }
  | { type: "llm"; config?: Partial<LLMCompactorConfig> };

/** The default strategy: tool-result compaction with default settings. */
export const DEFAULT_COMPACTOR_TYPE: Readonly<CompactorType> = Object.freeze({ type: "threshold" });

const CompactorTypeSchema = z.object({
  type: z.enum(["threshold", "llm"], { error: 'must be "threshold" or "llm"' }),
  config: z.record(z.string(), z.unknown()).exactOptional(),
});

/**
 * Builds the compactor a {@link CompactorType} names. `llm` needs an `LlmClient`.
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
  type: CompactorType = DEFAULT_COMPACTOR_TYPE,
  llmClient?: LlmClient,
): Compactor | AsyncCompactor {
  parseOrThrow(CompactorTypeSchema, type, "CompactorType");
  if (type.type === "threshold") return new ThresholdCompactor(type.config ?? {});
  if (llmClient === undefined) {
    throw new ValidationError("CompactorType", [
      { path: ["llmClient"], message: 'an LlmClient is required for type "llm"' },
    ]);
  }
  return new LLMCompactor(llmClient, type.config ?? {});
}
