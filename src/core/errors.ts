import type * as z from "zod/mini";
import { isPlainObject, setOwnProperty } from "../internal/plain-object.js";

const COMPACTION_ERROR_MARKER = Symbol.for("agent-compaction.CompactionError");
const VALIDATION_ERROR_MARKER = Symbol.for("agent-compaction.ValidationError");

/**
 * The base of the library's errors: a `code` saying why, the `cause`, and a marker per class
 * (`Symbol.for("agent-compaction.<name>")`) that its `isInstance` guard finds on an error from
 * any copy of this package, where `instanceof` fails.
 */
export abstract class AgentCompactionError<Code extends string = string> extends Error {
  /** Why it failed. */
  readonly code: Code;

  /** `marker` names the subclass (`Symbol.for("agent-compaction.<name>")`). */
  protected constructor(
    marker: symbol,
    code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    (this as unknown as Record<symbol, boolean>)[marker] = true;
  }

  /**
   * The `isInstance` guard of the class whose instances carry `marker`: `instanceof` fails on an
   * error from another copy of this package, the marker does not.
   */
  protected static guard<T>(marker: symbol): (value: unknown) => value is T {
    return (value: unknown): value is T =>
      typeof value === "object" && value !== null && marker in value;
  }
}

/**
 * Why a compaction failed: `llm_error` the summarizer failed (the `LlmClient` or the Anthropic
 * API threw, or no string came back); `timeout` it took longer than `summaryTimeoutMs`;
 * `empty_summary` it returned only whitespace; `summary_too_long` it returned more than twice
 * `maxSummaryTokens` by the local estimate (its client does not pass `maxTokens` on: kept, the
 * summary would hold most of the window); `aborted` the caller's signal fired, the history
 * was replaced while compacting (or a message appended meanwhile took an id of the output, tool
 * calls appended meanwhile wait for their results, results were merged into a message the
 * compaction changed), or (stored sessions) other workers' compactions won every attempt; `compactor_error` a custom
 * compactor threw (a bug in it, not the summarizer's failure); `busy`
 * `maybeCompact`/`forceCompact` was called from the session's running `beforeCompact` hook,
 * which would wait for the compaction that waits for the hook, or (stored sessions) another
 * worker held the compaction lease past `leaseMs`; `archive_error` the archive's `put` or `get`
 * threw (nothing of the compaction landed); `store_error` (stored sessions) a store call failed
 * or outlived `storeTimeoutMs` (`cause` is the store's error): nothing of the compaction was
 * stored. A `beforeCompact` hook, a custom compactor or the archive outliving its time limit is
 * a `timeout` too.
 */
export type CompactionErrorCode =
  | "llm_error"
  | "timeout"
  | "empty_summary"
  | "summary_too_long"
  | "aborted"
  | "compactor_error"
  | "busy"
  | "archive_error"
  | "store_error";

/** A compaction that failed; nothing of it was applied. */
export class CompactionError extends AgentCompactionError<CompactionErrorCode> {
  override readonly name = "CompactionError";

  constructor(code: CompactionErrorCode, message: string, options?: { cause?: unknown }) {
    super(COMPACTION_ERROR_MARKER, code, message, options);
  }

  /** Whether `value` is a `CompactionError`, even from another copy of this package. */
  static readonly isInstance = AgentCompactionError.guard<CompactionError>(COMPACTION_ERROR_MARKER);
}

/** One problem found in an input: where, and what is wrong. */
export interface ValidationIssue {
  /** Path to the offending field, e.g. `["messages", 3, "turnId", "number"]`. */
  path: (string | number)[];
  message: string;
}

/** Bad input: config, messages or a snapshot. `message` names the offending fields. */
export class ValidationError extends AgentCompactionError<"invalid_input"> {
  override readonly name = "ValidationError";
  /** Every problem found. */
  readonly issues: ValidationIssue[];

  constructor(subject: string, issues: ValidationIssue[], options?: { cause?: unknown }) {
    super(
      VALIDATION_ERROR_MARKER,
      "invalid_input",
      `Invalid ${subject}: ${issues.map(formatIssue).join("; ")}`,
      options,
    );
    this.issues = issues;
  }

  /** Whether `value` is a `ValidationError`, even from another copy of this package. */
  static readonly isInstance = AgentCompactionError.guard<ValidationError>(VALIDATION_ERROR_MARKER);
}

function formatIssue(issue: ValidationIssue): string {
  return issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`;
}

/** Renders a path as `messages[3].turnId.number`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : out === "" ? part : `.${part}`;
  }
  return out;
}

/**
 * zod's English messages, for the issues no schema of ours words itself (an unknown key, a wrong
 * discriminator): `zod/mini` loads no locale, and setting one with `z.config` would change the
 * caller's zod too, so each parse carries it.
 */
const IN_ENGLISH = { error: englishIssue };

/** A value as zod's English messages quote it. */
function quoted(value: unknown): string {
  return typeof value === "bigint"
    ? `${value}n`
    : typeof value === "string"
      ? `"${value}"`
      : `${value}`;
}

/** What zod's English locale names an input's type (`parsedType`), for `invalid_type`. */
function typeName(input: unknown): string {
  if (typeof input === "number") return Number.isFinite(input) ? "number" : String(input);
  if (typeof input !== "object") return typeof input;
  if (input === null) return "null";
  if (Array.isArray(input)) return "array";
  const prototype: unknown = Object.getPrototypeOf(input);
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (input as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string" && name !== "") return name;
  }
  return "object";
}

/** zod's English message for a value of the wrong type: `Invalid input: expected date, received string`. */
export function invalidType(expected: string, input: unknown): string {
  return `Invalid input: expected ${expected}, received ${typeName(input)}`;
}

/**
 * zod's English message for an issue no schema of ours words (the same texts as its `en`
 * locale for the issues our schemas can raise, without its tables for string formats none of
 * them leaves unworded).
 */
function englishIssue(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return invalidType(issue.expected, issue.input);
    case "invalid_value":
      return issue.values.length === 1
        ? `Invalid input: expected ${quoted(issue.values[0])}`
        : `Invalid option: expected one of ${issue.values.map(quoted).join("|")}`;
    case "too_big":
    case "too_small": {
      const big = issue.code === "too_big";
      const limit = big ? issue.maximum : issue.minimum;
      const adjective = issue.exact
        ? "exactly "
        : issue.inclusive
          ? big
            ? "<="
            : ">="
          : big
            ? "<"
            : ">";
      const unit = SIZE_UNITS[issue.origin as string];
      const expected = `expected ${issue.origin ?? "value"} to ${unit === undefined ? "be" : "have"} ${adjective}${limit}`;
      return `Too ${big ? "big" : "small"}: ${expected}${unit === undefined ? "" : ` ${unit}`}`;
    }
    case "unrecognized_keys":
      return `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map(quoted).join(", ")}`;
    case "invalid_union":
      return Array.isArray(issue.options) && issue.options.length > 0
        ? `Invalid discriminator value. Expected ${issue.options.map((option) => `'${String(option)}'`).join(" | ")}`
        : issue.inclusive === false
          ? "Invalid input: more than one option matched"
          : "Invalid input";
    case "invalid_key":
      return `Invalid key in ${issue.origin}`;
    case "invalid_element":
      return `Invalid value in ${issue.origin}`;
    case "not_multiple_of":
      return `Invalid number: must be a multiple of ${issue.divisor}`;
    default:
      return "Invalid input";
  }
}

/** The units zod's English messages count sizes in, by origin. */
const SIZE_UNITS: Record<string, string> = {
  string: "characters",
  array: "items",
  set: "items",
  map: "entries",
  file: "bytes",
};

/**
 * `schema.safeParse(value)`, its issues worded as zod's English locale words them where the
 * schema does not. Every parse of the library goes through it (or {@link parseOrThrow}).
 */
export function safeParse<T>(schema: z.ZodMiniType<T>, value: unknown) {
  return schema.safeParse(value, IN_ENGLISH);
}

/** Parses `value` with `schema`, throwing a `ValidationError` about `subject` on failure. */
export function parseOrThrow<T>(schema: z.ZodMiniType<T>, value: unknown, subject: string): T {
  let parsed = safeParse(schema, value);
  // An optional field set to `undefined` means absent (as callers without
  // exactOptionalPropertyTypes write it): retry without such keys before refusing.
  if (!parsed.success && hasUndefinedProperty(value))
    parsed = safeParse(schema, withoutUndefined(value));
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    subject,
    parsed.error.issues.flatMap((issue) => {
      const path = issue.path.map((part) => (typeof part === "symbol" ? String(part) : part));
      // Each unknown key named by its path, as every other issue's field is.
      if (issue.code === "unrecognized_keys")
        return issue.keys.map((key) => ({
          path: [...path, key],
          message: `Unrecognized key: ${quoted(key)}`,
        }));
      return [{ path, message: issue.message }];
    }),
  );
}

function hasUndefinedProperty(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(value)) return value.some((item) => hasUndefinedProperty(item, depth + 1));
  if (!isPlainObject(value)) return false;
  return Object.values(value).some(
    (inner) => inner === undefined || hasUndefinedProperty(inner, depth + 1),
  );
}

/** A copy of plain objects and arrays without the properties whose value is `undefined`. */
function withoutUndefined(value: unknown, depth = 0): unknown {
  if (depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => withoutUndefined(item, depth + 1));
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== undefined) setOwnProperty(copy, key, withoutUndefined(inner, depth + 1));
  }
  return copy;
}
