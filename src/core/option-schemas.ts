import * as z from "zod";

import type { Timers } from "./abort.js";

export { MAX_TIMER_MS, TimerMillisecondsSchema } from "./abort.js";

/**
 * The number and share schemas every options schema is built from (compactors, sessions,
 * stores, adapters), so one option means one rule and one wording wherever it appears.
 */

/** A whole number above 0; `unit` names what it counts in the message ("tokens"). */
export function positiveWholeNumber(unit?: string) {
  return z
    .number({ error: "must be a number" })
    .int(unit === undefined ? "must be a whole number" : `must be a whole number of ${unit}`)
    .positive("must be greater than 0");
}

/** A positive whole number. */
export const POSITIVE_INT_SCHEMA = positiveWholeNumber();

/** A whole number, 0 or more. */
export const NON_NEGATIVE_INT_SCHEMA = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .nonnegative("must be 0 or more");

/** A share of the window (a utilization ratio, a threshold), in (0, 1]. */
export const SHARE_SCHEMA = z
  .number({ error: "must be a number" })
  .refine((value) => Number.isFinite(value) && value > 0 && value <= 1, {
    message: "must be a number in (0, 1]",
  });

/** A non-empty string. */
export const NON_EMPTY_STRING_SCHEMA = z.string().min(1, "must be a non-empty string");

/** A function of type `T` (a clock, a hook). */
export function functionSchema<T>() {
  return z.custom<T>((value) => typeof value === "function", "must be a function");
}

/** Injected timers: an object with `setTimeout` and `clearTimeout` functions. */
export const TIMERS_SCHEMA = z.custom<Timers>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as Timers).setTimeout === "function" &&
    typeof (value as Timers).clearTimeout === "function",
  "must have setTimeout and clearTimeout functions",
);
