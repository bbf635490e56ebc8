import { z } from "zod";

/** A utilisation ratio in (0, 1]. */
export const THRESHOLD_SCHEMA = z
  .number({ error: "must be a number" })
  .refine((value) => Number.isFinite(value) && value > 0 && value <= 1, {
    message: "must be a number in (0, 1]",
  });

/** A whole number of turns, at least 1 (0 would compact the request in flight). */
export const KEEP_RECENT_TURNS_SCHEMA = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1 (0 would compact the request in flight)");

/** A positive whole number. */
export const POSITIVE_INT_SCHEMA = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .positive("must be greater than 0");

/** A whole number, 0 or more. */
export const NON_NEGATIVE_INT_SCHEMA = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more");

/** A whole number of tool uses, at least 1 (the newest result is never compacted). */
export const KEEP_RECENT_TOOL_USES_SCHEMA = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1 (the newest tool result is never compacted)");

/** A list of tool names. */
export const TOOL_NAMES_SCHEMA = z.array(z.string().min(1, "must be a non-empty tool name"), {
  error: "must be an array of tool names",
});

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
