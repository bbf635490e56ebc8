import { ValidationError } from "./errors.js";

/** What a model can take and give: its context window and its most output tokens, in tokens. */
export interface ModelLimits {
  /** The whole request plus the reply, in tokens. */
  contextWindow: number;
  /** The most tokens one reply may take (`max_tokens`). */
  maxOutputTokens: number;
}

const K = 1_000;
const M = 1_000_000;
const limits = (contextWindow: number, maxOutputTokens: number): ModelLimits =>
  Object.freeze({ contextWindow, maxOutputTokens });
/** Gemini's input limit (2^20 tokens). */
const GEMINI_WINDOW = 1_048_576;

/**
 * The windows of current Claude, OpenAI and Gemini models, by model id with dots written as
 * dashes (`gpt-5.1` is `gpt-5-1`), as the providers' model pages gave them in December 2026
 * (platform.claude.com model overviews; OpenAI's model pages as mirrored by AI gateways; the
 * Gemini API's `models` list, `inputTokenLimit` and `outputTokenLimit`, as gateways and
 * ai.google.dev's Gemini 4 Argon guide quote them). Claude 4.x models take 1M only with the
 * `context-1m` beta (Claude Code's `[1m]` suffix); GPT-6 models take at most 922K of their
 * 1.05M as input (the rest is the reply's); Gemini 4 Argon's 1,048,576 holds input and output
 * together, 65,536 output per request by default. A Gemini preview (`gemini-3-flash-preview`,
 * `gemini-2.5-flash-preview-09-2025`) is the model it previews.
 */
export const KNOWN_MODEL_LIMITS: Readonly<Record<string, ModelLimits>> = Object.freeze({
  // Claude: every model from the 5 generation on has a native 1M window and 128K output.
  "claude-fable-5-2": limits(M, 128 * K),
  "claude-fable-5-1": limits(M, 128 * K),
  "claude-fable-5": limits(M, 128 * K),
  "claude-mythos-5": limits(M, 128 * K),
  "claude-opus-5-5": limits(M, 128 * K),
  "claude-opus-5": limits(M, 128 * K),
  "claude-sonnet-5-5": limits(M, 128 * K),
  "claude-sonnet-5": limits(M, 128 * K),
  "claude-haiku-5-5": limits(M, 128 * K),
  "claude-opus-4-6": limits(200 * K, 128 * K),
  "claude-sonnet-4-6": limits(200 * K, 64 * K),
  "claude-opus-4-5": limits(200 * K, 64 * K),
  "claude-sonnet-4-5": limits(200 * K, 64 * K),
  "claude-haiku-4-5": limits(200 * K, 64 * K),
  "claude-opus-4-1": limits(200 * K, 32 * K),
  "claude-opus-4": limits(200 * K, 32 * K),
  "claude-sonnet-4": limits(200 * K, 64 * K),
  "claude-3-7-sonnet": limits(200 * K, 64 * K),
  "claude-3-5-haiku": limits(200 * K, 8_192),
  // OpenAI.
  "gpt-6-2-astra": limits(1_050_000, 128 * K),
  "gpt-6-1-sol": limits(1_050_000, 128 * K),
  "gpt-6-astra": limits(1_050_000, 128 * K),
  "gpt-6-sol": limits(1_050_000, 128 * K),
  "gpt-6-luna": limits(1_050_000, 128 * K),
  "gpt-5-6-sol": limits(1_050_000, 128 * K),
  "gpt-5-5": limits(1_050_000, 128 * K),
  "gpt-5-4": limits(1_050_000, 128 * K),
  "gpt-5-3-codex": limits(400 * K, 128 * K),
  "gpt-5-2-codex": limits(400 * K, 128 * K),
  "gpt-5-2": limits(400 * K, 128 * K),
  "gpt-5-1-codex": limits(400 * K, 128 * K),
  "gpt-5-1": limits(400 * K, 128 * K),
  "gpt-5-codex": limits(400 * K, 128 * K),
  "gpt-5": limits(400 * K, 128 * K),
  "gpt-5-mini": limits(400 * K, 128 * K),
  "gpt-5-nano": limits(400 * K, 128 * K),
  "gpt-5-chat-latest": limits(128 * K, 16_384),
  "gpt-5-1-chat-latest": limits(128 * K, 16_384),
  "gpt-4-1": limits(1_047_576, 32_768),
  "gpt-4-1-mini": limits(1_047_576, 32_768),
  "gpt-4-1-nano": limits(1_047_576, 32_768),
  "gpt-4o": limits(128 * K, 16_384),
  "gpt-4o-mini": limits(128 * K, 16_384),
  o3: limits(200 * K, 100 * K),
  "o3-mini": limits(200 * K, 100 * K),
  "o4-mini": limits(200 * K, 100 * K),
  o1: limits(200 * K, 100 * K),
  // Gemini: 1,048,576 input tokens, 65,536 output.
  "gemini-4-argon": limits(GEMINI_WINDOW, 65_536),
  "gemini-4-neon": limits(GEMINI_WINDOW, 65_536),
  "gemini-4-hydrogen": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-8-flash": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-7-flash": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-6-flash": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-5-flash": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-5-flash-lite": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-1-pro": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-1-flash-lite": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-pro": limits(GEMINI_WINDOW, 65_536),
  "gemini-3-flash": limits(GEMINI_WINDOW, 65_536),
  "gemini-2-5-pro": limits(GEMINI_WINDOW, 65_536),
  "gemini-2-5-flash": limits(GEMINI_WINDOW, 65_536),
  "gemini-2-5-flash-lite": limits(GEMINI_WINDOW, 65_536),
});

/** Other names of the models above (the providers' aliases). */
const ALIASES: Readonly<Record<string, string>> = Object.freeze({
  "gpt-5-6": "gpt-5-6-sol", // OpenAI routes the `gpt-5.6` alias to Sol
  "claude-opus-4-0": "claude-opus-4",
  "claude-sonnet-4-0": "claude-sonnet-4",
  "claude-3-7-sonnet-latest": "claude-3-7-sonnet",
  "claude-3-5-haiku-latest": "claude-3-5-haiku",
});

/** Names longer than this are no model id: refused before any work. */
const MAX_MODEL_NAME = 256;
const ONE_M_SUFFIX = "[1m]";

const isDigits = (text: string): boolean => {
  if (text.length === 0) return false;
  for (const char of text) if (char < "0" || char > "9") return false;
  return true;
};

/** `name` without a trailing snapshot date: `-20251001` or `-2025-08-07`. */
function withoutDate(name: string): string {
  const parts = name.split("-");
  const last = parts.at(-1) ?? "";
  if (parts.length > 1 && last.length === 8 && isDigits(last)) return parts.slice(0, -1).join("-");
  const [year, month, day] = parts.slice(-3);
  const dated =
    parts.length > 3 &&
    year?.length === 4 &&
    isDigits(year) &&
    month?.length === 2 &&
    isDigits(month) &&
    day?.length === 2 &&
    isDigits(day);
  return dated ? parts.slice(0, -3).join("-") : name;
}

/** `name` without Bedrock's version suffix (`-v1`, `-v1:0`). */
function withoutBedrockVersion(name: string): string {
  const at = name.lastIndexOf("-v");
  if (at < 0) return name;
  const [major, minor] = name.slice(at + 2).split(":");
  const versioned = isDigits(major ?? "") && (minor === undefined || isDigits(minor));
  return versioned ? name.slice(0, at) : name;
}

/** A Gemini preview's name as the model it previews: `gemini-3-flash-preview…` is `gemini-3-flash`. */
function withoutGeminiPreview(name: string): string {
  if (!name.startsWith("gemini-")) return name;
  const at = name.indexOf("-preview");
  return at < 0 ? name : name.slice(0, at);
}

/**
 * The table key a model name stands for: lower case, provider prefix (`anthropic/`,
 * `openai/`, `models/`, Bedrock's `us.anthropic.`), Vertex's `@date`, Bedrock's `-v1:0`, a
 * snapshot date and a Gemini `-preview…` suffix removed, dots as dashes. Linear in the name;
 * no regular expression.
 */
function normalize(model: string): { key: string; oneM: boolean } {
  let name = model.trim().toLowerCase();
  const oneM = name.endsWith(ONE_M_SUFFIX);
  if (oneM) name = name.slice(0, -ONE_M_SUFFIX.length);
  name = name.slice(name.lastIndexOf("/") + 1);
  const vendor = name.lastIndexOf("anthropic.");
  if (vendor >= 0) name = withoutBedrockVersion(name.slice(vendor + "anthropic.".length));
  const at = name.indexOf("@");
  if (at >= 0) name = name.slice(0, at);
  name = withoutBedrockVersion(name);
  const colon = name.indexOf(":");
  if (colon >= 0) name = name.slice(0, colon);
  name = withoutGeminiPreview(withoutDate(name.replaceAll(".", "-")));
  return { key: ALIASES[name] ?? name, oneM };
}

/**
 * The context window and output limit of a known model, from its name as the provider's API,
 * a gateway (`anthropic/claude-opus-5`), Bedrock or Vertex writes it, dated snapshots and
 * aliases included; `undefined` for a model it does not know (a name that merely starts like
 * a known one is not taken for it).
 *
 * @example
 * modelLimitsOf("claude-haiku-4-5-20251001"); // { contextWindow: 200000, maxOutputTokens: 64000 }
 */
export function modelLimitsOf(model: string): ModelLimits | undefined {
  if (typeof model !== "string" || model.length > MAX_MODEL_NAME) return undefined;
  const { key, oneM } = normalize(model);
  const known = Object.hasOwn(KNOWN_MODEL_LIMITS, key) ? KNOWN_MODEL_LIMITS[key] : undefined;
  if (known === undefined || !oneM) return known;
  return limits(Math.max(known.contextWindow, M), known.maxOutputTokens);
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
    message: `The provider accepted ${formatTokens(usedTokens)} input tokens, above the configured context window of ${formatTokens(configuredLimit)}: the model's window is larger than configured, so compaction runs on a wrong measure. Set contextLimit to the model's window.`,
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
