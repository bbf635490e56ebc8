import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import { recordSchema } from "../core/option-schemas.js";
import type { HybridCompactorOptions } from "./hybrid-compactor.js";
import type { LLMCompactorConfig } from "./llm-compactor.js";
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
  config: z.exactOptional(recordSchema()),
});

/**
 * Checks a {@link CompactorType} and builds it when it is `threshold` (it needs nothing more);
 * `undefined` for the others, which need an `LlmClient`. Apart from `createCompactor`, so what
 * takes only `{ type: "threshold" }` (a session's `compactor` option) does not bring the
 * summarizers into a bundle.
 * @throws {ValidationError} naming the field of a malformed type.
 */
export function thresholdFromType(type: CompactorType): ThresholdCompactor | undefined {
  parseOrThrow(CompactorTypeSchema, type, "CompactorType");
  return type.type === "threshold" ? new ThresholdCompactor(type.config ?? {}) : undefined;
}
