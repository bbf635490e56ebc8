import * as z from "zod/mini";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { LLM_CLIENT_SCHEMA, type LlmClient } from "../core/llm-client.js";
import { positiveWholeNumber, SHARE_SCHEMA } from "../core/option-schemas.js";

export { NON_NEGATIVE_INT_SCHEMA, POSITIVE_INT_SCHEMA } from "../core/option-schemas.js";

/** A utilization ratio in (0, 1]. */
export const THRESHOLD_SCHEMA = SHARE_SCHEMA;

/** A whole number of turns, at least 1 (0 would compact the request in flight). */
export const KEEP_RECENT_TURNS_SCHEMA = positiveWholeNumber(
  undefined,
  "0 would compact the request in flight",
);

/** A whole number of tool uses, at least 1 (the newest result is never compacted), or `false`. */
export const KEEP_RECENT_TOOL_USES_SCHEMA = z.union(
  [z.literal(false), positiveWholeNumber(undefined, "the newest tool result is never compacted")],
  { error: "must be false or a whole number above 0" },
);

/** A list of tool names. */
export const TOOL_NAMES_SCHEMA = z.array(
  z.string().check(z.minLength(1, "must be a non-empty tool name")),
  {
    error: "must be an array of tool names",
  },
);

/** `true` for every tool, `false` for none, or the names of the tools whose inputs are cleared. */
export const CLEAR_TOOL_INPUTS_SCHEMA = z.union([z.boolean(), TOOL_NAMES_SCHEMA], {
  error: "must be true, false or an array of tool names",
});

/** Issues for a `targetUtilization` above the `threshold` (the target must lie at or below it). */
export function targetIssues(config: {
  threshold: number;
  targetUtilization?: number | undefined;
}): { path: string[]; message: string }[] {
  if (config.targetUtilization === undefined || config.targetUtilization <= config.threshold)
    return [];
  return [
    {
      path: ["targetUtilization"],
      message: `must be at most the threshold (${config.threshold})`,
    },
  ];
}

/** What a compactor's options and their defaults share: a threshold, and maybe a target. */
interface Levels {
  threshold?: number | undefined;
  targetUtilization?: number | undefined;
}

/**
 * A compactor's options, every compactor's the same way: `options` checked against `schema`,
 * `defaults` filled in (a default target lowered to a threshold set below it) and the target
 * checked against the threshold.
 * @throws {ValidationError} about `subject`, naming each offending field.
 */
export function compactorOptions<
  Given extends Levels,
  Defaults extends Levels & { threshold: number },
>(
  schema: z.ZodMiniType<Given>,
  defaults: Defaults,
  options: unknown,
  subject: string,
): Omit<Given, keyof Defaults> & Defaults {
  const given = parseOrThrow(schema, options, subject);
  const merged = { ...defaults, ...given } as Omit<Given, keyof Defaults> & Defaults;
  // A default target never exceeds a threshold set below it: it follows the threshold down.
  const target = merged.targetUtilization;
  if (given.targetUtilization === undefined && target !== undefined && target > merged.threshold)
    merged.targetUtilization = merged.threshold;
  const issues = targetIssues(merged);
  if (issues.length > 0) throw new ValidationError(subject, issues);
  return merged;
}

/** Throws a `ValidationError` about `subject` unless `client` is an {@link LlmClient}. */
export function assertLlmClient(client: unknown, subject: string): asserts client is LlmClient {
  parseOrThrow(z.object({ client: LLM_CLIENT_SCHEMA }), { client }, subject);
}
