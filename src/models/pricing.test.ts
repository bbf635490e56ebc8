import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import {
  CostAccumulator,
  definePricing,
  PRICING_PRESETS,
  priceUsage,
  pricingForModel,
} from "./index.js";
import { contextWindowOf } from "./model-limits.js";

const SONNET = PRICING_PRESETS["claude-sonnet-5-5"];

describe("priceUsage", () => {
  it("prices input, cache writes (5 min by default, or 1 h), cache reads and output", () => {
    const usage = {
      inputTokens: 1_000_000,
      cacheCreationInputTokens: 1_000_000,
      cacheReadInputTokens: 1_000_000,
      outputTokens: 1_000_000,
    };
    expect(priceUsage(usage, SONNET)).toEqual({
      inputUsd: 2,
      cacheWriteUsd: 2.5,
      cacheReadUsd: 0.1,
      outputUsd: 10,
      totalUsd: 14.6,
    });
    expect(priceUsage(usage, SONNET, { cacheWriteTtl: "1h" }).cacheWriteUsd).toBe(4);
    expect(
      priceUsage(
        { inputTokens: 0, cacheReadInputTokens: 4_000_000 },
        PRICING_PRESETS["claude-fable-5-1"],
      ).totalUsd,
    ).toBe(1);
  });

  it("bills a whole request at the long rates above the prompt threshold (Haiku 5.5 above 100k)", () => {
    const haiku = PRICING_PRESETS["claude-haiku-5-5"];
    const at = priceUsage(
      { inputTokens: 40_000, cacheReadInputTokens: 60_000, outputTokens: 1000 },
      haiku,
    );
    const above = priceUsage(
      { inputTokens: 40_001, cacheReadInputTokens: 60_000, outputTokens: 1000 },
      haiku,
    );
    expect(at.inputUsd).toBeCloseTo(0.004, 10);
    expect(at.cacheReadUsd).toBeCloseTo(0.0006, 10);
    expect(at.outputUsd).toBeCloseTo(0.0005, 10);
    expect(above.inputUsd).toBeCloseTo(0.0200005, 10);
    expect(above.cacheReadUsd).toBeCloseTo(0.003, 10);
    expect(above.outputUsd).toBeCloseTo(0.0025, 10);
  });

  it("refuses usage that is not whole numbers ≥ 0, naming the field", () => {
    for (const bad of [Number.POSITIVE_INFINITY, -1, 1.5, Number.NaN]) {
      expect(() => priceUsage({ inputTokens: 1, cacheReadInputTokens: bad }, SONNET)).toThrow(
        /cacheReadInputTokens: must be a whole number/,
      );
    }
    expect(() => priceUsage({} as never, SONNET)).toThrow(/inputTokens: is required/);
  });
});

describe("definePricing", () => {
  it("fills defaults and freezes", () => {
    const pricing = definePricing({ inputPerMTok: 3, outputPerMTok: 15, cacheReadMultiplier: 0.1 });
    expect(pricing).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
      cacheReadMultiplier: 0.1,
      cacheWrite5mMultiplier: 1.25,
      cacheWrite1hMultiplier: 2,
    });
    expect(Object.isFrozen(pricing)).toBe(true);
  });

  it("names the bad field in a ValidationError, for direct calls and through priceUsage", () => {
    const cases: [unknown, RegExp][] = [
      [{ inputPerMTok: -1, outputPerMTok: 1, cacheReadMultiplier: 0.1 }, /inputPerMTok/],
      [
        { inputPerMTok: 1, outputPerMTok: Number.POSITIVE_INFINITY, cacheReadMultiplier: 0.1 },
        /outputPerMTok/,
      ],
      [{ inputPerMTok: 1, outputPerMTok: 1 }, /cacheReadMultiplier/],
      [
        {
          inputPerMTok: 1,
          outputPerMTok: 1,
          cacheReadMultiplier: 0.1,
          cacheWrite5mMultiplier: "x",
        },
        /cacheWrite5mMultiplier/,
      ],
      [
        {
          inputPerMTok: 1,
          outputPerMTok: 1,
          cacheReadMultiplier: 0.1,
          longContext: { aboveTokens: 0, inputPerMTok: 1, outputPerMTok: 1 },
        },
        /longContext\.aboveTokens/,
      ],
      [{ inputPerMTok: 1, outputPerMTok: 1, cacheReadMultiplier: 0.1, extra: 1 }, /extra/],
    ];
    for (const [pricing, field] of cases) {
      expect(() => definePricing(pricing as never)).toThrow(ValidationError);
      expect(() => definePricing(pricing as never)).toThrow(field);
      expect(() => priceUsage({ inputTokens: 1 }, pricing as never)).toThrow(field);
    }
  });

  it("accepts every preset", () => {
    for (const preset of Object.values(PRICING_PRESETS))
      expect(() => definePricing(preset)).not.toThrow();
    expect(PRICING_PRESETS["claude-fable-5-1"].cacheReadMultiplier).toBe(0.025);
    expect(PRICING_PRESETS["claude-opus-5-5"].cacheReadMultiplier).toBe(0.05);
    expect(PRICING_PRESETS["claude-haiku-5-5"].cacheReadMultiplier).toBe(0.1);
  });
});

describe("pricingForModel", () => {
  it("finds presets by id, dated id or window suffix, and nothing for unknown models", () => {
    expect(pricingForModel("claude-sonnet-5-5")).toBe(SONNET);
    expect(pricingForModel("claude-sonnet-5-5-20261007")).toBe(SONNET);
    expect(pricingForModel("claude-haiku-5-5[1m]")).toBe(PRICING_PRESETS["claude-haiku-5-5"]);
    expect(pricingForModel("claude-sonnet-5")).toBeUndefined();
    expect(pricingForModel("gpt-6.1-sol")).toBe(PRICING_PRESETS["gpt-6.1-sol"]);
  });

  it("finds a price wherever the window is found: gateway, Vertex, Bedrock and upper-case names", () => {
    for (const name of [
      "anthropic/claude-sonnet-5-5",
      "claude-sonnet-5-5@20261007",
      "us.anthropic.claude-sonnet-5-5-20261007-v1:0",
      "CLAUDE-SONNET-5-5",
      "  Claude-Sonnet-5.5 ",
    ]) {
      expect(pricingForModel(name), name).toBe(SONNET);
      expect(contextWindowOf(name), name).toBe(1_000_000);
    }
    expect(pricingForModel("openai/gpt-6.1-sol")).toBe(PRICING_PRESETS["gpt-6.1-sol"]);
    expect(pricingForModel("gpt-6-2-astra")).toBe(PRICING_PRESETS["gpt-6.2-astra"]);
  });

  it("gives no price to a name that merely starts like a priced model's", () => {
    for (const name of ["claude-sonnet-5-5-mini", "claude-haiku-5-5-turbo", "gpt-6-luna-pro"]) {
      expect(pricingForModel(name), name).toBeUndefined();
      expect(contextWindowOf(name), name).toBeUndefined();
    }
  });

  it("is one table with the windows: every priced model has its window, every name agrees", () => {
    for (const id of Object.keys(PRICING_PRESETS)) {
      expect(contextWindowOf(id), id).toBeGreaterThan(0);
      for (const name of [id, `${id}-20261201`, `anthropic/${id}`, id.toUpperCase(), `${id}[1m]`])
        expect(pricingForModel(name) !== undefined, name).toBe(contextWindowOf(name) !== undefined);
    }
  });

  it("finds Gemini presets by id, preview id and the SDK's models/ name", () => {
    expect(pricingForModel("gemini-3-flash-preview")).toBe(PRICING_PRESETS["gemini-3-flash"]);
    expect(pricingForModel("gemini-3.1-pro-preview")).toBe(PRICING_PRESETS["gemini-3.1-pro"]);
    expect(pricingForModel("models/gemini-2.5-flash")).toBe(PRICING_PRESETS["gemini-2.5-flash"]);
    expect(pricingForModel("gemini-2.5-flash-lite")).toBe(PRICING_PRESETS["gemini-2.5-flash-lite"]);
    expect(pricingForModel("gemini-4-argon")?.inputPerMTok).toBe(4);
  });

  it("prices a Gemini usage: cache reads at a tenth (a twentieth on Gemini 4), thinking as output, long prompts dearer", () => {
    // 100k prompt, 80k of it from the implicit cache, 1k reply and 1k of thinking.
    const flash = priceUsage(
      { inputTokens: 20_000, cacheReadInputTokens: 80_000, outputTokens: 2_000 },
      PRICING_PRESETS["gemini-3-flash"],
    );
    expect(flash.totalUsd).toBeCloseTo(0.01 + 0.004 + 0.006, 10);
    const argon = priceUsage(
      { inputTokens: 0, cacheReadInputTokens: 1_000_000 },
      PRICING_PRESETS["gemini-4-argon"],
    );
    expect(argon.totalUsd).toBeCloseTo(0.2, 10);
    // Above 200,000 prompt tokens, Gemini 2.5 Pro bills the whole request at $2.50 / $15.
    const long = priceUsage(
      { inputTokens: 300_000, outputTokens: 1_000 },
      PRICING_PRESETS["gemini-2.5-pro"],
    );
    expect(long.totalUsd).toBeCloseTo(0.75 + 0.015, 10);
  });
});

describe("CostAccumulator", () => {
  it("counts requests and compactions apart, and in total", () => {
    const costs = new CostAccumulator(SONNET);
    expect(costs.addRequest({ inputTokens: 1_000_000 }).totalUsd).toBe(2);
    costs.addRequest({ inputTokens: 0, cacheReadInputTokens: 1_000_000, outputTokens: 100_000 });
    expect(costs.addCompaction({ inputTokens: 500_000, outputTokens: 0 }).totalUsd).toBe(1);
    const summary = costs.summary();
    expect(summary.requests.count).toBe(2);
    expect(summary.requests.cost.totalUsd).toBeCloseTo(3.1, 10);
    expect(summary.compactions).toMatchObject({ count: 1, cost: { totalUsd: 1 } });
    expect(summary.total.count).toBe(3);
    expect(summary.total.cost.totalUsd).toBeCloseTo(4.1, 10);
    expect(summary.total.tokens).toEqual({
      inputTokens: 1_500_000,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 1_000_000,
      outputTokens: 100_000,
    });
    expect(costs.totalUsd).toBeCloseTo(4.1, 10);
  });

  it("counts nothing of a bad usage, and refuses a bad price table at construction", () => {
    const costs = new CostAccumulator(SONNET);
    expect(() => costs.addRequest({ inputTokens: -5 })).toThrow(ValidationError);
    expect(costs.summary().total.count).toBe(0);
    expect(() => new CostAccumulator({ inputPerMTok: 1 } as never)).toThrow(/outputPerMTok/);
  });

  it("prices 1-hour writes when told", () => {
    const costs = new CostAccumulator(SONNET, { cacheWriteTtl: "1h" });
    expect(costs.addRequest({ inputTokens: 0, cacheCreationInputTokens: 1_000_000 }).totalUsd).toBe(
      4,
    );
  });
});
