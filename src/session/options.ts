import * as z from "zod/mini";
import { type CompactorType, thresholdFromType } from "../compactors/compactor-type.js";
import {
  ThresholdCompactor,
  type ThresholdCompactorOptions,
} from "../compactors/threshold-compactor.js";
import { type AsyncCompactor, type Compactor, compactorProblem } from "../core/compactor.js";
import type { Clock } from "../core/message-factory.js";
import {
  BOOLEAN_SCHEMA,
  CLOCK_SCHEMA,
  functionSchema,
  methodsSchema,
  NON_EMPTY_STRING_SCHEMA,
  POSITIVE_INT_SCHEMA,
  positiveWholeNumber,
  SHARE_SCHEMA,
  TimerMillisecondsSchema,
} from "../core/option-schemas.js";
import { isPlainObject } from "../internal/plain-object.js";
import { contextWindowOf } from "../models/model-limits.js";
import { type ModelPricing, ModelPricingSchema } from "../models/model-pricing.js";
import type { CompactionArchive } from "./archive.js";
import type { CompactionEvent, Logger } from "./events.js";
import type { AfterCompactHook, BeforeCompactHook } from "./hooks.js";

/** Options of {@link AgentSession}. */
export interface AgentSessionOptions {
  /**
   * The model's context window in tokens. Required unless `model` names a model whose window
   * is known (`contextWindowOf`); a value given here wins over the model's.
   */
  contextLimit?: number;
  /** @default a new uuid v7 */
  sessionId?: string;
  /**
   * The first compactor `maybeCompact` runs: a `Compactor`, a `CompactorType` that needs no
   * client (`{ type: "threshold", config? }`, the seed's defaults), or `false` for none.
   * @default a ThresholdCompactor with {@link DEFAULT_SESSION_COMPACTOR_OPTIONS}
   */
  compactor?: Compactor | CompactorType | false;
  /** The second compactor, judged on the context left after the first. @default none */
  llmCompactor?: AsyncCompactor;
  /** Clock for message timestamps. @default the wall clock */
  clock?: Clock;
  /** Called with every compaction event. @default none */
  onEvent?: (event: CompactionEvent) => void;
  /** Receives what cannot go through events (a listener or hook that threw). @default silent */
  logger?: Logger;
  /** Automatic summaries pause after this many failures in a row. @default 3 */
  maxConsecutiveFailures?: number;
  /** Called before each compactor runs: may veto it or add instructions for the summarizer. @default none */
  beforeCompact?: BeforeCompactHook;
  /** Called with the boundary record after each compactor that changed the conversation. @default none */
  afterCompact?: AfterCompactHook;
  /**
   * The last resort: when the context is still above 95% of the window after every compactor
   * (the margin covers the estimate of what was appended since the last usage), remove
   * the oldest messages (never splitting a tool exchange, keeping summaries and the latest
   * request) until it is at or below `targetUtilization` of the window. The removed messages
   * go out in a `context_trimmed` event and the report. `true` means `{ targetUtilization:
   * 0.5 }`; with `false` an overflow is only reported (`context_overflow`). @default true
   */
  trimOnOverflow?: boolean | { targetUtilization?: number };
  /**
   * The largest share of the window one text may take (a tool result, a pasted document);
   * a longer one is cut to its head and tail as it is appended, and the original goes out in
   * a `content_clamped` event. Thinking appended after it in the same call (a history written
   * elsewhere, signed on the whole text) is removed as stale (see `keepStaleThinking`). In
   * (0, 1]. @default 0.25
   */
  maxBlockShare?: number;
  /**
   * Keep the thinking blocks a compaction made stale. By default every `thinking` and
   * `redacted_thinking` block after the first message a compaction changed is removed, so no
   * request fails the API's preserved-thinking prefix check; keep them only when your requests
   * send `thinking.block_binding.prefix_mismatch_behavior: "drop_block"`. @default false
   */
  keepStaleThinking?: boolean;
  /**
   * Where what compactions remove or replace is kept, under the recall handle its placeholder
   * names (`session.recall(handle)`); `false` keeps nothing (placeholders then name no handle).
   * @default a new MemoryArchive
   */
  archive?: CompactionArchive | false;
  /**
   * Background compaction: from a summarizing compactor's threshold, `maybeCompact` starts
   * the summary and returns at once; the agent goes on with the full history, and the exact
   * prefix the summary covers is swapped when it arrives (messages appended meanwhile stay
   * after it). Never two in flight; `maybeCompact` waits only while the context is above
   * `ceiling` of the window. `true` means `{ ceiling: 0.95 }`. @default false
   */
  background?: boolean | { ceiling?: number };
  /**
   * How long a `beforeCompact` or `afterCompact` hook may run. A `beforeCompact` hook still
   * running then ends that compaction as a `CompactionError` `timeout` (the caller's signal
   * ends it as `aborted`); an `afterCompact` hook is logged and left behind. At most
   * 2^31 − 1 (as every millisecond option). @default 30000
   */
  hookTimeoutMs?: number;
  /**
   * How long a custom compactor's `compactAsync` may run; then its signal fires and the
   * compaction ends as a `timeout`. Built-in compactors keep their own limits
   * (`summaryTimeoutMs`, `timeoutMs`). @default 300000
   */
  compactorTimeoutMs?: number;
  /**
   * How long the archive's `put` (before a compaction lands) or `get` (originals for a
   * summary) may take; then the compaction ends as a `timeout`, and nothing of it lands.
   * @default 30000
   */
  archiveTimeoutMs?: number;
  /**
   * How long automatic summaries pause once `maxConsecutiveFailures` failed in a row (by the
   * session's `clock`). Then the breaker is half-open: the next due summary is tried once; a
   * success closes it, a failure opens it for another cooldown. @default 60000
   */
  circuitCooldownMs?: number;
  /**
   * The model's name. Its known window checks `contextLimit` (`resolveContextLimit({ model })`
   * gives it): a `context_window_warning` event and a logger warning when the window is unknown,
   * above the model's, or when reported usage shows it is wrong; and it picks `pricing`'s preset.
   * @default none
   */
  model?: string;
  /**
   * Prices for `session.cost`: each request's reported usage and each compaction's, in dollars.
   * @default the preset of `model` (`pricingForModel`), else none: the cost is not counted
   */
  pricing?: ModelPricing;
}

/** The session's time limits and breaker cooldown, in milliseconds (see {@link AgentSessionOptions}). */
export interface SessionLimits {
  hookTimeoutMs: number;
  compactorTimeoutMs: number;
  archiveTimeoutMs: number;
  circuitCooldownMs: number;
}

/**
 * The defaults of {@link AgentSessionOptions}: the one table the session, the stored session and
 * the stateless paths read (the default compactor's own are {@link DEFAULT_SESSION_COMPACTOR_OPTIONS}).
 */
export const DEFAULT_SESSION_OPTIONS = Object.freeze({
  maxConsecutiveFailures: 3,
  /** What `trimOnOverflow: true`, the default, means. */
  trimOnOverflow: Object.freeze({ targetUtilization: 0.5 }),
  maxBlockShare: 0.25,
  keepStaleThinking: false,
  /** What `background: true` means (background mode is off unless asked for). */
  background: Object.freeze({ ceiling: 0.95 }),
  hookTimeoutMs: 30_000,
  compactorTimeoutMs: 300_000,
  archiveTimeoutMs: 30_000,
  circuitCooldownMs: 60_000,
});

/** The limits of a session from its (parsed) options. */
export function sessionLimits(options: Partial<SessionLimits>): SessionLimits {
  const defaults = DEFAULT_SESSION_OPTIONS;
  return {
    hookTimeoutMs: options.hookTimeoutMs ?? defaults.hookTimeoutMs,
    compactorTimeoutMs: options.compactorTimeoutMs ?? defaults.compactorTimeoutMs,
    archiveTimeoutMs: options.archiveTimeoutMs ?? defaults.archiveTimeoutMs,
    circuitCooldownMs: options.circuitCooldownMs ?? defaults.circuitCooldownMs,
  };
}

/**
 * The compactor a session runs when `compactor` is not given, tuned on real agent runs for
 * dollars at cache prices and for what the agent uses next (the bench's real-run replay): every
 * compaction rewrites the prompt cache from its first change on, so it waits until 72% of the
 * window and then goes deep. The newest messages stay whole (the 8 newest tool uses and the
 * newest 10% of the window: the agent has just read them); older tool results give way to their
 * summary or the redaction notice, and, when that leaves the context above a fifth of the
 * window, the older messages go in the same rewrite (archived; a notice keeps
 * the user's words, the file ledger and the outlines of the files read). Only a rewrite freeing
 * at least {@link DEFAULT_CLEAR_AT_LEAST_SHARE} of the window runs. With an `llmCompactor` the
 * summarizer folds the old part instead, at its own threshold, and this compactor only masks,
 * from {@link DEFAULT_MASKING_WITH_SUMMARIES_THRESHOLD}: a fallback while the summarizer is down.
 */
export const DEFAULT_SESSION_COMPACTOR_OPTIONS: Readonly<Partial<ThresholdCompactorOptions>> =
  Object.freeze({
    toolCompaction: "summarize_or_redact",
    threshold: 0.72,
    keepRecentToolUses: 8,
    keepRecentShare: 0.1,
    targetUtilization: 0.2,
    clearToolInputs: false,
    keepPathMentions: true,
    dropOldest: true,
  });

/**
 * The share of the window the default compactor must free to run (its `clearAtLeast`, from the
 * window): a rewrite of the cache repays its write only through a large saving.
 */
export const DEFAULT_CLEAR_AT_LEAST_SHARE = 0.1;

/**
 * The default compactor's threshold when the session has an `llmCompactor`: above the
 * summarizer's, so masking acts only when summaries fail or cannot keep up.
 */
export const DEFAULT_MASKING_WITH_SUMMARIES_THRESHOLD = 0.9;

/** The compactors a session runs, in order, from its options and its window. */
export function sessionCompactors(options: AgentSessionOptions, contextLimit: number): Compactor[] {
  const compactors: Compactor[] = [];
  const first = options.compactor;
  if (first === undefined) {
    const clearAtLeast = Math.floor(DEFAULT_CLEAR_AT_LEAST_SHARE * contextLimit);
    const summarized = options.llmCompactor !== undefined;
    const clock = options.clock === undefined ? {} : { clock: options.clock };
    compactors.push(
      new ThresholdCompactor({
        ...DEFAULT_SESSION_COMPACTOR_OPTIONS,
        clearAtLeast,
        ...(summarized
          ? { dropOldest: false, threshold: DEFAULT_MASKING_WITH_SUMMARIES_THRESHOLD }
          : {}),
        ...clock,
      }),
    );
  } else if (first !== false) {
    // A CompactorType here is `threshold` (the others were refused for wanting an LlmClient).
    compactors.push("type" in first ? (thresholdFromType(first) as ThresholdCompactor) : first);
  }
  if (options.llmCompactor) compactors.push(options.llmCompactor);
  return compactors;
}

/** `trimOnOverflow` as a target utilization, or `undefined` when it is off. */
export function trimTarget(option: AgentSessionOptions["trimOnOverflow"]): number | undefined {
  if (option === false) return undefined;
  const { targetUtilization } = DEFAULT_SESSION_OPTIONS.trimOnOverflow;
  if (option === undefined || option === true) return targetUtilization;
  return option.targetUtilization ?? targetUtilization;
}

/** `background` as the share of the window above which `maybeCompact` waits, or `undefined` when it is off. */
export function backgroundCeiling(option: AgentSessionOptions["background"]): number | undefined {
  if (option === undefined || option === false) return undefined;
  const { ceiling } = DEFAULT_SESSION_OPTIONS.background;
  return option === true ? ceiling : (option.ceiling ?? ceiling);
}

/** What is wrong with a `compactor` option: `false`, `{ type: "threshold", config? }` or a compactor. */
function compactorOptionProblem(value: unknown): string | undefined {
  if (value === false) return undefined;
  if (isPlainObject(value) && "type" in value) {
    if (value["type"] === "llm" || value["type"] === "hybrid") {
      return `{ type: "${value["type"]}" } needs an LlmClient: pass createCompactor({ type: "${value["type"]}" }, client) or a compactor object`;
    }
    if (value["type"] !== "threshold") return 'must be a Compactor, { type: "threshold" } or false';
    const extra = Object.keys(value).filter((key) => key !== "type" && key !== "config");
    if (extra.length > 0) return `unknown key "${extra[0]}" in a CompactorType`;
    return undefined;
  }
  return compactorProblem(value);
}

/** The `compactor` option: `false`, `{ type: "threshold", config? }` or a compactor (the session's and the stateless paths'). */
export const COMPACTOR_OPTION_SCHEMA = z.unknown().check(
  z.superRefine((value, context) => {
    const problem = compactorOptionProblem(value);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  }),
);

/** A compactor the session can run (see `compactorProblem`). */
export const runnableCompactor = <T extends Compactor>() =>
  z.unknown().check(
    z.superRefine((value, context) => {
      const problem = compactorProblem(value);
      if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
    }),
  ) as unknown as z.ZodMiniType<T>;

/** `true`, `false` or `{ [key]?: share }` (an option on or off, or on with a share of the window). */
export function booleanOrShare(key: string) {
  return z.union([z.boolean(), z.strictObject({ [key]: z.exactOptional(SHARE_SCHEMA) })], {
    error: `must be a boolean or { ${key} }`,
  });
}

/** A {@link CompactionArchive}: an object with `put` and `get`. */
export const ARCHIVE_SCHEMA = methodsSchema<CompactionArchive>("a CompactionArchive", "put", "get");

/** The `archive` option: a {@link CompactionArchive} or `false`. */
export const ARCHIVE_OPTION_SCHEMA = z.union([z.literal(false), ARCHIVE_SCHEMA], {
  error: "must be a CompactionArchive (with put and get) or false",
});

/** Schema of {@link AgentSessionOptions}. */
export const AgentSessionOptionsSchema = z
  .strictObject({
    contextLimit: z.exactOptional(positiveWholeNumber("tokens")),
    sessionId: z.exactOptional(NON_EMPTY_STRING_SCHEMA),
    compactor: z.exactOptional(COMPACTOR_OPTION_SCHEMA) as unknown as z.ZodMiniOptional<
      z.ZodMiniType<Compactor | CompactorType | false>
    >,
    llmCompactor: z.exactOptional(runnableCompactor<AsyncCompactor>()),
    clock: z.exactOptional(CLOCK_SCHEMA),
    onEvent: z.exactOptional(functionSchema<(event: CompactionEvent) => void>()),
    logger: z.exactOptional(methodsSchema<Logger>("a Logger", "warn")),
    beforeCompact: z.exactOptional(functionSchema<BeforeCompactHook>()),
    afterCompact: z.exactOptional(functionSchema<AfterCompactHook>()),
    maxConsecutiveFailures: z.exactOptional(POSITIVE_INT_SCHEMA),
    trimOnOverflow: z.exactOptional(booleanOrShare("targetUtilization")),
    maxBlockShare: z.exactOptional(SHARE_SCHEMA),
    keepStaleThinking: z.exactOptional(BOOLEAN_SCHEMA),
    model: z.exactOptional(
      NON_EMPTY_STRING_SCHEMA.check(z.maxLength(256, "must be at most 256 characters")),
    ),
    pricing: z.exactOptional(ModelPricingSchema),
    background: z.exactOptional(booleanOrShare("ceiling")),
    archive: z.exactOptional(ARCHIVE_OPTION_SCHEMA),
    hookTimeoutMs: z.exactOptional(TimerMillisecondsSchema),
    compactorTimeoutMs: z.exactOptional(TimerMillisecondsSchema),
    archiveTimeoutMs: z.exactOptional(TimerMillisecondsSchema),
    circuitCooldownMs: z.exactOptional(TimerMillisecondsSchema),
  })
  .check(
    z.superRefine((options, context) => {
      if (options.contextLimit !== undefined) return;
      const known = options.model === undefined ? undefined : contextWindowOf(options.model);
      if (known !== undefined) return;
      context.addIssue({
        code: "custom",
        path: ["contextLimit"],
        message:
          options.model === undefined
            ? "is required (or a model whose window is known)"
            : `is required: the window of model ${JSON.stringify(options.model.slice(0, 64))} is not known`,
      });
    }),
  );
