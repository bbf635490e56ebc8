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
