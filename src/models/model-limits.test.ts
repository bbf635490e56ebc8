import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import {
  checkConfiguredWindow,
  checkReportedUsage,
  contextWindowOf,
  KNOWN_MODEL_LIMITS,
  modelLimitsOf,
  resolveContextLimit,
} from "./model-limits.js";
import { MODEL_TABLE } from "./model-table.js";

/** Checks `contextWindowOf` of each name against its window. */
function expectWindows(windows: Record<string, number>): void {
  for (const [model, window] of Object.entries(windows)) {
    expect(contextWindowOf(model), model).toBe(window);
  }
}

describe("modelLimitsOf / contextWindowOf", () => {
  it("knows current Claude and OpenAI models by their ids", () => {
    expect(modelLimitsOf("claude-fable-5-1")).toEqual({
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
    });
    expect(modelLimitsOf("claude-haiku-4-5")).toEqual({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(modelLimitsOf("gpt-5.6-sol")).toEqual({
      contextWindow: 1_050_000,
      maxOutputTokens: 128_000,
    });
    expectWindows({
      "gpt-5": 400_000,
      "gpt-6.1-sol": 1_050_000,
      "gpt-6-luna": 1_050_000,
      "gpt-5-mini": 400_000,
      "gpt-4o": 128_000,
      o3: 200_000,
    });
  });

  it("knows current Gemini models, by their ids, previews, SDK and gateway names", () => {
    expect(modelLimitsOf("gemini-4-argon")).toEqual({
      contextWindow: 1_048_576,
      maxOutputTokens: 65_536,
    });
    expectWindows({
      "gemini-2.5-pro": 1_048_576,
      "gemini-2.5-flash": 1_048_576,
      "gemini-2.5-flash-lite": 1_048_576,
      "gemini-3-pro-preview": 1_048_576,
      "gemini-3-flash-preview": 1_048_576,
      "gemini-3.1-pro-preview-customtools": 1_048_576,
      "gemini-2.5-flash-preview-09-2025": 1_048_576,
      "models/gemini-3.8-flash": 1_048_576,
      "google/gemini-4-hydrogen": 1_048_576,
    });
    // A preview of a model the table does not hold is not taken for another.
    for (const name of ["gemini-3-pro-image-preview", "gemini-4", "gemini-flash-latest"])
      expect(contextWindowOf(name), name).toBeUndefined();
  });

  it("matches dated snapshots, aliases, gateway, Bedrock and Vertex names", () => {
    expectWindows({
      "claude-haiku-4-5-20251001": 200_000,
      "claude-opus-4-0": 200_000,
      "gpt-5-2025-08-07": 400_000,
      "gpt-5.6": 1_050_000,
      "anthropic/claude-fable-5.1": 1_000_000,
      "openai/gpt-6-astra": 1_050_000,
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0": 200_000,
      "anthropic.claude-opus-5-v1": 1_000_000,
      "claude-opus-5@20260724": 1_000_000,
      "  Claude-Sonnet-5-5 ": 1_000_000,
    });
  });

  it("reads Claude Code's [1m] suffix as the 1M window", () => {
    expect(contextWindowOf("claude-sonnet-4-5[1m]")).toBe(1_000_000);
    expect(modelLimitsOf("claude-sonnet-4-5[1m]")?.maxOutputTokens).toBe(64_000);
  });

  it("gives 1M for [1m] only to the models that offer the context-1m beta", () => {
    expectWindows({
      "claude-sonnet-4[1m]": 1_000_000,
      "claude-sonnet-4-6[1m]": 1_000_000,
      "claude-opus-4-6-20260205[1m]": 1_000_000,
      "claude-sonnet-5-5[1m]": 1_000_000,
      // Models without the beta keep their own window.
      "gpt-4o[1m]": 128_000,
      "o3[1m]": 200_000,
      "claude-3-5-haiku[1m]": 200_000,
      "claude-haiku-4-5[1m]": 200_000,
      "claude-opus-4-1[1m]": 200_000,
    });
  });

  it("finds every model in MODEL_TABLE, the one table of windows and prices", () => {
    for (const [id, row] of Object.entries(MODEL_TABLE)) {
      expect(modelLimitsOf(id), id).toEqual({
        contextWindow: row.contextWindow,
        maxOutputTokens: row.maxOutputTokens,
      });
    }
    expect(Object.keys(KNOWN_MODEL_LIMITS)).toHaveLength(Object.keys(MODEL_TABLE).length);
    expect(Object.isFrozen(MODEL_TABLE["claude-sonnet-5-5"].pricing)).toBe(true);
  });

  it("returns undefined for unknown models, never a guess from a shared prefix", () => {
    for (const model of [
      "claude-sonnet-5-5-mini",
      "gpt-5.6-terra",
      "gpt-5-chat",
      "claude-opus-5-7",
      "claude",
      "gpt",
      "",
      "toString",
      "__proto__",
      "llama-3-70b",
      "x".repeat(300),
    ]) {
      expect(contextWindowOf(model), model).toBeUndefined();
    }
    expect(contextWindowOf(3 as never)).toBeUndefined();
  });

  it("has sane numbers for every entry", () => {
    for (const [model, limits] of Object.entries(KNOWN_MODEL_LIMITS)) {
      expect(limits.maxOutputTokens, model).toBeLessThan(limits.contextWindow);
      expect(contextWindowOf(model), model).toBe(limits.contextWindow);
    }
  });

  it("stays linear on long adversarial names", () => {
    // Refused past 256 characters; below it, one pass per step (no backtracking to blow up).
    const name = `${"-v1:".repeat(60)}anthropic.${"9".repeat(8)}`;
    expect(contextWindowOf(name)).toBeUndefined();
    expect(contextWindowOf("-".repeat(255))).toBeUndefined();
  });
});

describe("checkReportedUsage", () => {
  it("says when the provider accepted more tokens than the configured window", () => {
    const mismatch = checkReportedUsage(652_000, 200_000);
    expect(mismatch).toMatchObject({
      kind: "usage_above_window",
      usedTokens: 652_000,
      configuredLimit: 200_000,
    });
    expect(mismatch?.message).toContain("652,000");
    expect(mismatch?.message).toContain("contextLimit");
  });

  it("is silent when the usage fits, at the window included", () => {
    expect(checkReportedUsage(200_000, 200_000)).toBeUndefined();
    expect(checkReportedUsage(0, 200_000)).toBeUndefined();
  });

  it("refuses bad numbers, naming the argument", () => {
    expect(() => checkReportedUsage(Number.NaN, 1)).toThrow(/usedTokens/);
    expect(() => checkReportedUsage(1, -5)).toThrow(ValidationError);
    expect(() => checkReportedUsage(1, 0)).toThrow(/configuredLimit/);
  });
});

describe("checkConfiguredWindow / resolveContextLimit", () => {
  it("reports an unknown window only when no contextLimit was given", () => {
    expect(checkConfiguredWindow("my-local-model")).toMatchObject({ kind: "unknown_model" });
    expect(checkConfiguredWindow("my-local-model", 32_000)).toBeUndefined();
    expect(checkConfiguredWindow("claude-opus-5")).toBeUndefined();
  });

  it("reports a configured window above the model's, not one below it", () => {
    expect(checkConfiguredWindow("claude-haiku-4-5", 1_000_000)).toMatchObject({
      kind: "above_model_window",
      modelWindow: 200_000,
      configuredLimit: 1_000_000,
    });
    expect(checkConfiguredWindow("claude-opus-5", 200_000)).toBeUndefined();
    expect(() => checkConfiguredWindow("claude-opus-5", -1)).toThrow(/configuredLimit/);
  });

  it("lets a user value win over the model's window", () => {
    expect(resolveContextLimit({ model: "claude-opus-5", contextLimit: 150_000 })).toEqual({
      contextLimit: 150_000,
      source: "configured",
    });
    expect(resolveContextLimit({ model: "claude-opus-5" })).toEqual({
      contextLimit: 1_000_000,
      source: "model",
    });
    expect(resolveContextLimit({ model: "unknown" })).toBeUndefined();
    expect(resolveContextLimit({})).toBeUndefined();
  });
});
