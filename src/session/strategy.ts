import type { CompactionOutput, CompactionUsage, Compactor } from "../core/compactor.js";
import { assertMessages } from "../core/entry-validation.js";
import { CompactionError, ValidationError } from "../core/errors.js";

/** A compactor's strategy name: its `strategy` property, else `custom`. */
export function strategyOf(compactor: Compactor): string {
  const strategy: unknown = compactor.strategy;
  return typeof strategy === "string" && strategy !== "" ? strategy : "custom";
}

/**
 * A failure as a `CompactionError`: a summarizer's failures already are one; anything else a
 * compactor throws is a bug in that compactor (`compactor_error`), never the summarizer's.
 */
export function asCompactionError(error: unknown, compactor: Compactor): CompactionError {
  if (CompactionError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CompactionError(
    "compactor_error",
    `the ${strategyOf(compactor)} compactor threw: ${message}`,
    { cause: error },
  );
}

/** Validates what a custom compactor returned. @throws {ValidationError} naming what is wrong. */
export function assertCompactorOutput(output: unknown): asserts output is CompactionOutput {
  const conversation = (output as Partial<CompactionOutput> | null)?.conversation;
  if (typeof output !== "object" || output === null || !Array.isArray(conversation)) {
    throw new ValidationError("compactor output", [
      { path: ["conversation"], message: "must be an array of messages" },
    ]);
  }
  assertMessages(conversation, "compactor output conversation");
}

/** Adds a compaction's reported usage into a running total. */
export function addUsage(total: CompactionUsage, usage: CompactionUsage | undefined): void {
  if (usage === undefined) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  const created = (total.cacheCreationInputTokens ?? 0) + (usage.cacheCreationInputTokens ?? 0);
  const read = (total.cacheReadInputTokens ?? 0) + (usage.cacheReadInputTokens ?? 0);
  if (created > 0) total.cacheCreationInputTokens = created;
  if (read > 0) total.cacheReadInputTokens = read;
}
