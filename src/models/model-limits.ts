import { ValidationError } from "../core/errors.js";
import { type KnownModel, lookupKey, MODEL_TABLE, type ModelRow, modelOf } from "./model-table.js";

/** What a model can take and give: its context window and its most output tokens, in tokens. */
export interface ModelLimits {
  /** The whole request plus the reply, in tokens. */
  contextWindow: number;
  /** The most tokens one reply may take (`max_tokens`). */
  maxOutputTokens: number;
}

const limits = (row: ModelRow): ModelLimits =>
  Object.freeze({ contextWindow: row.contextWindow, maxOutputTokens: row.maxOutputTokens });

/**
 * The windows of current Claude and OpenAI models, by model id with dots written as dashes
 * (`gpt-5.1` is `gpt-5-1`): a view of `MODEL_TABLE`, the one table of windows and prices.
 */
export const KNOWN_MODEL_LIMITS: Readonly<Record<string, ModelLimits>> = Object.freeze(
  Object.fromEntries(
    (Object.keys(MODEL_TABLE) as KnownModel[]).map((id) => [
      lookupKey(id),
      limits(MODEL_TABLE[id]),
    ]),
  ),
);

/** Names longer than this are no model id (see `modelOf`). */
const MAX_MODEL_NAME = 256;

/**
 * The context window and output limit of a known model, from its name as the provider's API,
 * a gateway (`anthropic/claude-opus-5`), Bedrock or Vertex writes it, in any case, dated
 * snapshots and aliases included; `undefined` for a model it does not know (a name that merely
 * starts like a known one is not taken for it). `[1m]` (Claude Code's suffix for Anthropic's
 * `context-1m` beta) gives 1M only to the models that offer it.
 *
 * @example
 * modelLimitsOf("claude-haiku-4-5-20251001"); // { contextWindow: 200000, maxOutputTokens: 64000 }
 */
export function modelLimitsOf(model: string): ModelLimits | undefined {
  const found = modelOf(model);
  if (found === undefined) return undefined;
  const known = KNOWN_MODEL_LIMITS[lookupKey(found.id)];
  if (!found.oneM || found.row.oneMillionBeta !== true || known === undefined) return known;
  return Object.freeze({
    contextWindow: Math.max(found.row.contextWindow, 1_000_000),
    maxOutputTokens: found.row.maxOutputTokens,
  });
}

/** The context window of a known model in tokens, or `undefined` (see {@link modelLimitsOf}). */
export function contextWindowOf(model: string): number | undefined {
  return modelLimitsOf(model)?.contextWindow;
}

/** Reported usage above the configured window: the API took more than the window allows. */
export interface UsageAboveWindow {
  kind: "usage_above_window";
  /** The tokens the provider reported for a request it accepted. */
  usedTokens: number;
  configuredLimit: number;
  /** Why, in words, for a logger. */
  message: string;
}

/**
 * The provider refused a request for its length and named the model's window, below the
 * configured one: the session takes the named window from then on.
 */
export interface RefusedAboveWindow {
  kind: "refused_above_window";
  /** The most input tokens the refusal says the model takes. */
  modelWindow: number;
  /** The window the session had. */
  configuredLimit: number;
  /** The tokens the refused request held, when the refusal says. */
  requestTokens?: number;
  /** Why, in words, for a logger. */
  message: string;
}

/**
 * The system prompt and tools alone (what the context measure counts beyond the messages) are
 * above a compactor's trigger: no compaction of the messages can bring the context under it, so
 * the session does not empty the history trying (it still trims when a request would not fit).
 */
export interface OverheadAboveTrigger {
  kind: "overhead_above_trigger";
  /** Tokens the measure counts beyond the messages. */
  overheadTokens: number;
  contextLimit: number;
  /** Why, in words, for a logger. */
  message: string;
}

/**
 * What a refusal for length says of the window: a {@link RefusedAboveWindow} when the window it
 * names is below `configuredLimit`; `undefined` otherwise (the configured window is no larger).
 */
export function checkRefusedWindow(
  refusal: { windowTokens: number; requestTokens?: number },
  configuredLimit: number,
): RefusedAboveWindow | undefined {
  if (refusal.windowTokens >= configuredLimit) return undefined;
  const { windowTokens, requestTokens } = refusal;
  return {
    kind: "refused_above_window",
    modelWindow: windowTokens,
    configuredLimit,
    ...(requestTokens === undefined ? {} : { requestTokens }),
    message: `The provider refused a request for its length and named a window of ${formatTokens(windowTokens)} tokens, below the configured ${formatTokens(configuredLimit)}: the session compacts to ${formatTokens(windowTokens)} from now on. Set contextLimit to the model's window.`,
  };
}

/** Something wrong with the window a session is configured with, for a model. */
export type ConfiguredWindowProblem =
  /** No `contextLimit` was given and the model is not known: the window is unknown. */
  | { kind: "unknown_model"; model: string; message: string }
  /** The configured window is larger than the model's: requests would be refused before any compaction. */
  | {
      kind: "above_model_window";
      model: string;
      configuredLimit: number;
      modelWindow: number;
      message: string;
    };

const formatTokens = (tokens: number): string => tokens.toLocaleString("en-US");

function assertCount(value: unknown, field: string, subject: string): asserts value is number {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return;
  throw new ValidationError(subject, [
    { path: [field], message: "must be a finite number of tokens, 0 or more" },
  ]);
}

/**
 * Whether usage the provider reported shows the configured window is wrong: a request it
 * accepted held more tokens than the window (as a resumed 1M session configured for 200K, or
 * the reverse mistake Claude Code users hit). `undefined` when the usage fits.
 *
 * @example
 * checkReportedUsage(652_000, 200_000)?.message; // "The provider accepted 652,000 input tokens, …"
 */
export function checkReportedUsage(
  usedTokens: number,
  configuredLimit: number,
): UsageAboveWindow | undefined {
  assertCount(usedTokens, "usedTokens", "checkReportedUsage arguments");
  assertCount(configuredLimit, "configuredLimit", "checkReportedUsage arguments");
  if (configuredLimit === 0) {
    throw new ValidationError("checkReportedUsage arguments", [
      { path: ["configuredLimit"], message: "must be more than 0" },
    ]);
  }
  if (usedTokens <= configuredLimit) return undefined;
  return {
    kind: "usage_above_window",
    usedTokens,
    configuredLimit,
    message: `The provider accepted ${formatTokens(usedTokens)} input tokens, above the configured context window of ${formatTokens(configuredLimit)}: compaction measures against too small a window. Set contextLimit to the model's window.`,
  };
}

/**
 * What is wrong with the window configured for `model`: unknown (no `contextLimit` and a
 * model not in {@link KNOWN_MODEL_LIMITS}), or above the model's own window. A configured
 * window below the model's is a choice (compacting early), not a problem. `undefined` when
 * nothing is wrong.
 */
export function checkConfiguredWindow(
  model: string,
  configuredLimit?: number,
): ConfiguredWindowProblem | undefined {
  if (configuredLimit !== undefined) {
    assertCount(configuredLimit, "configuredLimit", "checkConfiguredWindow arguments");
  }
  const modelWindow = contextWindowOf(model);
  if (modelWindow === undefined) {
    if (configuredLimit !== undefined) return undefined;
    return {
      kind: "unknown_model",
      model,
      message: `The context window of model "${model.slice(0, MAX_MODEL_NAME)}" is not known and no contextLimit was given: set contextLimit to the model's window.`,
    };
  }
  if (configuredLimit === undefined || configuredLimit <= modelWindow) return undefined;
  return {
    kind: "above_model_window",
    model,
    configuredLimit,
    modelWindow,
    message: `The configured context window of ${formatTokens(configuredLimit)} is above the ${formatTokens(modelWindow)} of model "${model}": the provider would refuse requests before compaction runs.`,
  };
}

/**
 * The window a session should use: the configured `contextLimit` when given (a user value
 * wins), else the model's known window; `undefined` when neither is known.
 */
export function resolveContextLimit(options: {
  model?: string;
  contextLimit?: number;
}): { contextLimit: number; source: "configured" | "model" } | undefined {
  if (options.contextLimit !== undefined) {
    return { contextLimit: options.contextLimit, source: "configured" };
  }
  const window = options.model === undefined ? undefined : contextWindowOf(options.model);
  return window === undefined ? undefined : { contextLimit: window, source: "model" };
}
