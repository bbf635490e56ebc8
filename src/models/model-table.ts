import { freezeDeeply } from "../internal/frozen.js";
import type { ModelPricing } from "./model-prices.js";

/*
 * List prices in USD per million tokens, standard tier, as published on 2026-12-01. Sources:
 * - Anthropic: platform.claude.com/docs/en/about-claude/pricing and each model's overview page
 *   (platform.claude.com/docs/en/models/fable-5-1/overview: $10 / $50; .../sonnet-5-5/overview:
 *   $2 / $10). Cache reads: Fable 5.1 $0.25 (0.025x, "a quarter of what they did",
 *   BerriAI/litellm discussion #39163); Opus 5.5 $0.20 and Sonnet 5.5 $0.10 (0.05x since
 *   2026-10-07; TheKrush/PromptFuel v1.0.21 and v1.0.23, kurofune/claudit v1.9.2); Haiku 5.5
 *   $0.10 / $0.50 with $0.01 reads up to a 100,000-token prompt and $0.50 / $2.50 above it, on
 *   every token of that request (kurofune/claudit v1.9.2). Writes 1.25x (5 min) and 2x (1 h).
 * - OpenAI: developers.openai.com/api/docs/pricing. GPT-6.2 Astra $8 / $40 with cached input
 *   $0.40 (BerriAI/litellm discussion #52347: 60% below GPT-6 Astra's $1); GPT-6.1 Sol $2 / $10
 *   with $0.10 reads (docs.apiyi.com news "GPT-6.1 Sol Is Live"); GPT-6 Luna $0.10 / $0.50 with
 *   $0.01 reads and $0.125 writes (merefield/codexometer v0.18.4). Writes 1.25x on GPT-5.6 and
 *   later (OpenAI's prompt-caching guide, quoted in mindroom-ai/mindroom PR #2134). Above 272,000
 *   input tokens input and cache rates double and output is 1.5x (BerriAI/litellm discussion
 *   #42523). OpenAI has no 1-hour write price: `cacheWrite1hMultiplier` stays at its default.
 * - Google: ai.google.dev/gemini-api/docs/pricing, as gateways quote it. Gemini 4 Argon $4 / $20
 *   with $0.20 reads from 2026-12-01 (BerriAI/litellm discussion #46238, iyulab/TokenMeter
 *   v0.13.1); Gemini 4 Neon $3 / $15 with $0.15 reads and Gemini 4 Hydrogen $1.50 / $7.50 with
 *   $0.075 reads (TokenMeter v0.17.0); Gemini 3.8 Flash $0.75 / $3.75 with $0.075 reads through
 *   2026-12-31 ($1.50 / $7.50 from 2027-01-01; pydantic/genai-prices PR #678); Gemini 3.1 Pro
 *   $2 / $12 with $0.20 reads, $4 / $18 above 200,000 prompt tokens; Gemini 3 Flash $0.50 / $3
 *   with $0.05 reads (simonw/llm-prices PR #68); Gemini 2.5 Pro $1.25 / $10 ($2.50 / $15 above
 *   200,000), 2.5 Flash $0.30 / $2.50, 2.5 Flash-Lite $0.10 / $0.40, reads a tenth of input.
 *   Thinking is billed as output.
 * Windows: the providers' model pages as they gave them in December 2026 (platform.claude.com
 * model overviews; OpenAI's model pages as mirrored by AI gateways; the Gemini API's `models`
 * list, `inputTokenLimit` and `outputTokenLimit`, as gateways quote them). GPT-6 models take at most
 * 922K of their 1.05M as input (the rest is the reply's).
 */

/** One known model: what it takes and gives, in tokens, and what it costs when the prices are known. */
export interface ModelRow {
  /** The whole request plus the reply, in tokens. */
  readonly contextWindow: number;
  /** The most tokens one reply may take (`max_tokens`). */
  readonly maxOutputTokens: number;
  /** Its list prices; absent when the library does not know them. */
  readonly pricing?: Readonly<ModelPricing>;
  /**
   * It takes 1M tokens with Anthropic's `context-1m` beta (Claude Code's `[1m]` suffix): the
   * Claude 4 models that offer it. Any other model's `[1m]` name has its own window.
   */
  readonly oneMillionBeta?: true;
}

const K = 1_000;
const M = 1_000_000;
/** Anthropic's cache writes: 1.25x for 5 minutes, 2x for an hour. */
const CLAUDE_WRITES = { cacheWrite5mMultiplier: 1.25, cacheWrite1hMultiplier: 2 } as const;

/** A row of a model whose prices the library does not know: its window and its most output. */
const limits = (contextWindow: number, maxOutputTokens: number, oneMillionBeta?: true): ModelRow =>
  oneMillionBeta === undefined
    ? { contextWindow, maxOutputTokens }
    : { contextWindow, maxOutputTokens, oneMillionBeta };

/** Gemini's input limit (2^20 tokens). */
const GEMINI_WINDOW = 1_048_576;

/**
 * A Gemini row: its window, and its prices with reads at `cacheReadMultiplier` of input and no
 * write premium (implicit caching bills none; explicit caching's hourly storage is not modelled).
 */
const geminiRow = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadMultiplier: number,
  longContext?: LongContext,
) => ({
  contextWindow: GEMINI_WINDOW,
  maxOutputTokens: 65_536,
  pricing: {
    inputPerMTok,
    outputPerMTok,
    cacheReadMultiplier,
    cacheWrite5mMultiplier: 1,
    cacheWrite1hMultiplier: 1,
    ...(longContext === undefined ? {} : { longContext }),
  },
});

/** Prices above a prompt size: `aboveTokens`, and the input and output rates from there. */
type LongContext = { aboveTokens: number; inputPerMTok: number; outputPerMTok: number };

/**
 * A Claude row from the 5 generation on (a native 1M window, 128K output): its prices, reads at
 * `cacheReadMultiplier` of input, writes at Anthropic's premiums.
 */
const claudeRow = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadMultiplier: number,
  longContext?: LongContext,
) => ({
  contextWindow: M,
  maxOutputTokens: 128 * K,
  pricing: {
    inputPerMTok,
    outputPerMTok,
    ...CLAUDE_WRITES,
    cacheReadMultiplier,
    ...(longContext === undefined ? {} : { longContext }),
  },
});

/**
 * An OpenAI row from GPT-6 on (1.05M window, 128K output): its prices, writes 1.25x; above 272K
 * input tokens, the dearer input and output rates (`above`).
 */
const openAiRow = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadMultiplier: number,
  above: readonly [input: number, output: number],
) => ({
  contextWindow: 1_050_000,
  maxOutputTokens: 128 * K,
  pricing: {
    inputPerMTok,
    outputPerMTok,
    cacheReadMultiplier,
    cacheWrite5mMultiplier: 1.25,
    longContext: { aboveTokens: 272_000, inputPerMTok: above[0], outputPerMTok: above[1] },
  },
});

/** Claude from the 5 generation on: a native 1M window, 128K output. */
const CLAUDE_5_LIMITS = limits(M, 128 * K);
/** OpenAI's GPT-5.4 on: 1.05M, 128K output. */
const GPT_6_LIMITS = limits(1_050_000, 128 * K);
/** OpenAI's GPT-5 to 5.3: 400K, 128K output. */
const GPT_5_LIMITS = limits(400 * K, 128 * K);
/** Gemini: 2^20 input tokens, 65,536 output. */
const GEMINI_LIMITS = limits(GEMINI_WINDOW, 65_536);
/** OpenAI's chat models: 128K, 16K output. */
const CHAT_LIMITS = limits(128 * K, 16_384);
/** OpenAI's o-series: 200K, 100K output. */
const O_SERIES_LIMITS = limits(200 * K, 100 * K);

/**
 * Every model the library knows, one row each, by its id as its provider writes it (dated
 * snapshots, aliases, gateway, Bedrock and Vertex names find the same row): its window, its
 * most output and, where known, its prices. `KNOWN_MODEL_LIMITS` and `PRICING_PRESETS` are
 * views of it; adding a model is adding a row.
 */
export const MODEL_TABLE = freezeDeeply({
  // Claude: every model from the 5 generation on has a native 1M window and 128K output.
  "claude-fable-5-2": CLAUDE_5_LIMITS,
  "claude-fable-5-1": claudeRow(10, 50, 0.025),
  "claude-fable-5": CLAUDE_5_LIMITS,
  "claude-mythos-5": CLAUDE_5_LIMITS,
  "claude-opus-5-5": claudeRow(4, 20, 0.05),
  "claude-opus-5": CLAUDE_5_LIMITS,
  "claude-sonnet-5-5": claudeRow(2, 10, 0.05),
  "claude-sonnet-5": CLAUDE_5_LIMITS,
  "claude-haiku-5-5": claudeRow(0.1, 0.5, 0.1, {
    aboveTokens: 100_000,
    inputPerMTok: 0.5,
    outputPerMTok: 2.5,
  }),
  // Claude 4: 200K; those with `oneMillionBeta` take 1M with the `context-1m` beta.
  "claude-opus-4-6": limits(200 * K, 128 * K, true),
  "claude-sonnet-4-6": limits(200 * K, 64 * K, true),
  "claude-opus-4-5": limits(200 * K, 64 * K),
  "claude-sonnet-4-5": limits(200 * K, 64 * K, true),
  "claude-haiku-4-5": limits(200 * K, 64 * K),
  "claude-opus-4-1": limits(200 * K, 32 * K),
  "claude-opus-4": limits(200 * K, 32 * K),
  "claude-sonnet-4": limits(200 * K, 64 * K, true),
  "claude-3-7-sonnet": limits(200 * K, 64 * K),
  "claude-3-5-haiku": limits(200 * K, 8_192),
  // OpenAI.
  "gpt-6.2-astra": openAiRow(8, 40, 0.05, [16, 60]),
  "gpt-6.1-sol": openAiRow(2, 10, 0.05, [4, 15]),
  "gpt-6-astra": GPT_6_LIMITS,
  "gpt-6-sol": GPT_6_LIMITS,
  "gpt-6-luna": openAiRow(0.1, 0.5, 0.1, [0.2, 0.75]),
  "gpt-5.6-sol": GPT_6_LIMITS,
  "gpt-5.5": GPT_6_LIMITS,
  "gpt-5.4": GPT_6_LIMITS,
  "gpt-5.3-codex": GPT_5_LIMITS,
  "gpt-5.2-codex": GPT_5_LIMITS,
  "gpt-5.2": GPT_5_LIMITS,
  "gpt-5.1-codex": GPT_5_LIMITS,
  "gpt-5.1": GPT_5_LIMITS,
  "gpt-5-codex": GPT_5_LIMITS,
  "gpt-5": GPT_5_LIMITS,
  "gpt-5-mini": GPT_5_LIMITS,
  "gpt-5-nano": GPT_5_LIMITS,
  "gpt-5-chat-latest": CHAT_LIMITS,
  "gpt-5.1-chat-latest": CHAT_LIMITS,
  "gpt-4.1": limits(1_047_576, 32_768),
  "gpt-4.1-mini": limits(1_047_576, 32_768),
  "gpt-4.1-nano": limits(1_047_576, 32_768),
  "gpt-4o": CHAT_LIMITS,
  "gpt-4o-mini": CHAT_LIMITS,
  o3: O_SERIES_LIMITS,
  "o3-mini": O_SERIES_LIMITS,
  "o4-mini": O_SERIES_LIMITS,
  o1: O_SERIES_LIMITS,
  // Gemini: 1,048,576 input tokens, 65,536 output; a `-preview…` id is the model it previews.
  "gemini-4-argon": geminiRow(4, 20, 0.05),
  "gemini-4-neon": geminiRow(3, 15, 0.05),
  "gemini-4-hydrogen": geminiRow(1.5, 7.5, 0.05),
  "gemini-3.8-flash": geminiRow(0.75, 3.75, 0.1),
  "gemini-3.7-flash": GEMINI_LIMITS,
  "gemini-3.6-flash": GEMINI_LIMITS,
  "gemini-3.5-flash": GEMINI_LIMITS,
  "gemini-3.5-flash-lite": GEMINI_LIMITS,
  "gemini-3.1-pro": geminiRow(2, 12, 0.1, {
    aboveTokens: 200_000,
    inputPerMTok: 4,
    outputPerMTok: 18,
  }),
  "gemini-3.1-flash-lite": GEMINI_LIMITS,
  "gemini-3-pro": GEMINI_LIMITS,
  "gemini-3-flash": geminiRow(0.5, 3, 0.1),
  "gemini-2.5-pro": geminiRow(1.25, 10, 0.1, {
    aboveTokens: 200_000,
    inputPerMTok: 2.5,
    outputPerMTok: 15,
  }),
  "gemini-2.5-flash": geminiRow(0.3, 2.5, 0.1),
  "gemini-2.5-flash-lite": geminiRow(0.1, 0.4, 0.1),
} as const satisfies Record<string, ModelRow>);

/** A model id in {@link MODEL_TABLE}. */
export type KnownModel = keyof typeof MODEL_TABLE;

/** Other names of the models above (the providers' aliases), as lookup keys. */
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

/** A model id's lookup key: lower case, dots as dashes (`gpt-5.1` is `gpt-5-1`). */
export const lookupKey = (id: string): string => id.toLowerCase().replaceAll(".", "-");

/** The rows by lookup key. */
const BY_KEY: ReadonlyMap<string, { id: KnownModel; row: ModelRow }> = new Map(
  (Object.keys(MODEL_TABLE) as KnownModel[]).map((id) => [
    lookupKey(id),
    { id, row: MODEL_TABLE[id] },
  ]),
);

/**
 * The row a model name stands for, as the provider's API, a gateway (`anthropic/claude-opus-5`),
 * Bedrock or Vertex writes it, in any case, dated snapshots and aliases included; `oneM` when
 * it asks for the 1M window (`[1m]`). `undefined` for a model the table does not have (a name
 * that merely starts like a known one is not taken for it).
 */
export function modelOf(
  model: string,
): { id: KnownModel; row: ModelRow; oneM: boolean } | undefined {
  if (typeof model !== "string" || model.length > MAX_MODEL_NAME) return undefined;
  const { key, oneM } = normalize(model);
  const found = BY_KEY.get(key);
  return found === undefined ? undefined : { ...found, oneM };
}
