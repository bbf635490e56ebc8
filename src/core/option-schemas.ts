import * as z from "zod/mini";
import { isIsoDateTime } from "../internal/iso-date.js";
import { isPlainObject } from "../internal/plain-object.js";
import { isAbortSignal, MAX_TIMER_MS, type Timers } from "./abort.js";
import { invalidType, safeParse } from "./errors.js";
import type { Clock } from "./message-factory.js";

/**
 * The schemas every options schema is built from (compactors, sessions, stores, adapters,
 * clients): one rule, one schema and one wording wherever an option appears. Options are
 * validated with these, through `parseOrThrow`, never by hand.
 */

/** "is required" for a missing value, else `message`: the error of a schema with one message. */
function orRequired(message: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : message);
}

/**
 * A whole number of at least `least`, with one message whatever is wrong with it ("must be a
 * whole number above 0"): `unit` names what it counts ("tokens"), `because` why less is refused
 * where that is not obvious.
 */
function wholeNumber(least: 0 | 1, unit?: string, because?: string) {
  const counted = unit === undefined ? "" : ` of ${unit}`;
  const bound = least === 0 ? "≥ 0" : "above 0";
  const reason = because === undefined ? "" : ` (${because})`;
  const message = `must be a whole number${counted} ${bound}${reason}`;
  return z
    .number({ error: orRequired(message) })
    .check(z.refine((value) => Number.isSafeInteger(value) && value >= least, message));
}

/**
 * A whole number above 0; `unit` names what it counts in the message ("tokens"), `because`
 * why 0 is refused where that is not obvious.
 */
export function positiveWholeNumber(unit?: string, because?: string) {
  return wholeNumber(1, unit, because);
}

/** A positive whole number. */
export const POSITIVE_INT_SCHEMA = positiveWholeNumber();

/** A whole number, 0 or more (a token count). */
export const NON_NEGATIVE_INT_SCHEMA = wholeNumber(0);

/** Schema of a millisecond option: a whole number from 1 to {@link MAX_TIMER_MS}. */
export const TimerMillisecondsSchema = positiveWholeNumber("milliseconds").check(
  z.lte(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (the longest timer delay)`),
);

/**
 * A finite number from `least` on ("must be a finite number, 0 or more"), or above it when
 * `above` ("must be a finite number above 0").
 */
export function finiteNumber(least: number, above = false) {
  return z
    .number({ error: "must be a number" })
    .check(
      z.refine(
        (value) => Number.isFinite(value) && (above ? value > least : value >= least),
        `must be a finite number${above ? " above" : ","} ${least}${above ? "" : " or more"}`,
      ),
    );
}

/** A count of tokens that need not be whole (a measure, a usage): a finite number, 0 or more. */
export const TOKENS_SCHEMA = finiteNumber(0);

/** A share of the window (a utilization ratio, a threshold), in (0, 1]. */
export const SHARE_SCHEMA = z.number({ error: "must be a number" }).check(
  z.refine((value) => Number.isFinite(value) && value > 0 && value <= 1, {
    message: "must be a number in (0, 1]",
  }),
);

/** A string. */
export const STRING_SCHEMA = z.string({ error: "must be a string" });

/** A non-empty string. */
export const NON_EMPTY_STRING_SCHEMA = z
  .string({ error: orRequired("must be a non-empty string") })
  .check(z.minLength(1, "must be a non-empty string"));

/** A boolean. */
export const BOOLEAN_SCHEMA = z.boolean({ error: "must be a boolean" });

/** An ISO 8601 date and time with an offset ({@link isIsoDateTime}), read as a `Date`. */
export const ISO_DATE_SCHEMA = z.pipe(
  z
    .string({ error: "must be an ISO 8601 date" })
    .check(z.refine(isIsoDateTime, "must be an ISO 8601 date")),
  z.transform((value) => new Date(value)),
);

/** A function of type `T` (a hook, a callback). */
export function functionSchema<T>() {
  return z.custom<T>((value) => typeof value === "function", "must be a function");
}

/** A clock: a function returning the time as a `Date`. */
export const CLOCK_SCHEMA = z.custom<Clock>(
  (value) => typeof value === "function",
  "must be a function returning a Date",
);

/** A plain object of type `T` (SDK request options, extra request fields). */
export function plainObjectSchema<T extends object = Record<string, unknown>>() {
  return z.custom<T>(isPlainObject, "must be an object");
}

/**
 * A plain object of string keys whose values `valueIssue` accepts (it answers what is wrong with
 * one, or `undefined`), as `z.record(z.string(), …)` checks it: an issue at each bad value's key
 * (a symbol key is `Invalid key in record`), `Invalid input: expected record, received array`
 * for anything but a plain object. By hand: zod's record schema is 2.7 kB of a session's bundle.
 */
export function recordSchema<V>(
  valueIssue: (value: unknown) => string | undefined = () => undefined,
) {
  return z.custom<Record<string, V>>().check(
    z.superRefine((value: unknown, context) => {
      if (!isPlainObject(value)) {
        context.addIssue({ code: "custom", message: invalidType("record", value) });
        return;
      }
      for (const key of Reflect.ownKeys(value)) {
        if (!Object.prototype.propertyIsEnumerable.call(value, key)) continue;
        const message = typeof key === "symbol" ? "Invalid key in record" : valueIssue(value[key]);
        if (message !== undefined) context.addIssue({ code: "custom", message, path: [key] });
      }
    }),
  );
}

/** What is wrong with a value that must be a string, as zod words it; `undefined` for a string. */
export function stringIssue(value: unknown): string | undefined {
  return typeof value === "string" ? undefined : invalidType("string", value);
}

/** An `AbortSignal` (duck-typed: signals of polyfills and other realms too). */
export const ABORT_SIGNAL_SCHEMA = z.custom<AbortSignal>(isAbortSignal, "must be an AbortSignal");

/**
 * An object of type `T` that has each of `methods` as a function, `what` naming it in the
 * message: `must be an LlmClient (with complete)`. A dotted method (`responses.create`) is
 * looked up on the object under it.
 */
export function methodsSchema<T>(what: string, ...methods: string[]) {
  return z.custom<T>(
    (value) => methods.every((method) => typeof lookUp(value, method.split(".")) === "function"),
    `must be ${what} (with ${methods.join(" and ")})`,
  );
}

function lookUp(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * The options object of a constructor or function: `shape`'s fields checked, others passed
 * through unchecked (as they always were for these options); anything but an object is
 * refused as "must be an object".
 */
export function optionsSchema<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject(shape, {
    error: (issue) => (issue.code === "invalid_type" ? "must be an object" : undefined),
  });
}

/**
 * `false` (the option turned off) or an options object `schema` checks, whose issues keep
 * their paths (`conversation.systemPrompt`); anything else is refused as `must be false or an
 * object`.
 */
export function falseOr<T extends object>(schema: z.ZodMiniType<T>) {
  return z.unknown().check(
    z.superRefine((value, context) => {
      if (value === false) return;
      if (!isPlainObject(value)) {
        context.addIssue({ code: "custom", message: "must be false or an object" });
        return;
      }
      for (const issue of safeParse(schema, value).error?.issues ?? [])
        context.addIssue({ code: "custom", message: issue.message, path: issue.path });
    }),
  ) as unknown as z.ZodMiniType<false | T>;
}

/** Injected timers: an object with `setTimeout` and `clearTimeout` functions. */
export const TIMERS_SCHEMA = /* @__PURE__ */ z.custom<Timers>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as Timers).setTimeout === "function" &&
    typeof (value as Timers).clearTimeout === "function",
  "must have setTimeout and clearTimeout functions",
);
