import { describe, expect, it } from "vitest";
import { AgentSession } from "../session/agent-session.js";
import { definePricing } from "./model-pricing.js";
import { PRICING_PRESETS } from "./presets.js";
import { RewriteBudget } from "./rewrite-budget.js";

const at = (cacheReadMultiplier: number) =>
  definePricing({ inputPerMTok: 3, outputPerMTok: 15, cacheReadMultiplier });

/** The context at which a budget first says a rewrite has repaid itself, growing `growth` a request. */
function triggerOf(budget: RewriteBudget, floor: number, growth: number): number {
  for (let context = floor; context < 10_000_000; context += growth) {
    budget.observe(context);
    if (budget.repaid) return context;
  }
  throw new Error("never repaid");
}

describe("RewriteBudget", () => {
  it("compacts at floor + √(2·w·floor·g / r), the cheapest trigger for a steady run", () => {
    const floor = 20_000;
    const growth = 3_000;
    for (const read of [0.1, 0.05, 0.025]) {
      const ideal = floor + Math.sqrt((2 * 1.25 * floor * growth) / read);
      const trigger = triggerOf(new RewriteBudget(at(read), floor), floor, growth);
      expect(Math.abs(trigger - ideal)).toBeLessThanOrEqual(growth);
    }
    // Dearer writes or cheaper reads wait longer.
    const cheapReads = triggerOf(new RewriteBudget(at(0.025), floor), floor, growth);
    const dearReads = triggerOf(new RewriteBudget(at(0.1), floor), floor, growth);
    expect(cheapReads).toBeGreaterThan(dearReads);
  });

  it("counts from zero when the conversation's generation changes (a rewrite it did not see)", () => {
    const budget = new RewriteBudget(at(0.1), 20_000);
    for (let request = 0; request < 100; request += 1) budget.observe(80_000, 7);
    expect(budget.repaid).toBe(true);
    budget.observe(20_000, 8);
    expect(budget.repaid).toBe(false);
  });

  it("counts from zero after a rewrite, and nothing below the floor", () => {
    const budget = new RewriteBudget(at(0.1), 20_000);
    for (let request = 0; request < 1000; request += 1) budget.observe(19_000);
    expect(budget.repaid).toBe(false);
    triggerOf(budget, 20_000, 3_000);
    budget.reset();
    expect(budget.repaid).toBe(false);
  });
});

/** The share of the window at which a session of 3,000-token steps first compacts. */
async function firstCompaction(options: ConstructorParameters<typeof AgentSession>[0]) {
  const session = new AgentSession(options);
  const contextLimit = 200_000;
  session.addUserText("Refactor the parser; never edit generated files.");
  for (let step = 0; step < 200; step += 1) {
    const id = `toolu_${step}`;
    session.addAssistant([
      { type: "tool_use", id, name: "read_file", input: { path: `f${step}.ts` } },
    ]);
    session.addToolResults([{ type: "tool_result", toolUseId: id, content: "z".repeat(12_000) }]);
    const report = await session.maybeCompact();
    if (report.compacted) return report.contextUsedBefore / contextLimit;
  }
  return undefined;
}

describe("a priced session", () => {
  it("compacts earlier where reads are dear, later where they are cheap, and at the threshold unpriced", async () => {
    const base = { contextLimit: 200_000 };
    const unpriced = await firstCompaction(base);
    const tenth = await firstCompaction({ ...base, pricing: at(0.1) });
    const fable = await firstCompaction({ ...base, pricing: PRICING_PRESETS["claude-fable-5-1"] });
    // Unpriced at the threshold (0.72); at 0.1x reads where the reads repaid a rewrite down to
    // the target (0.2 + √(2·1.25·0.2·3,000 / (0.1·200,000)) ≈ 0.49 of the window), well before.
    expect(unpriced).toBeGreaterThan(0.72);
    expect(tenth).toBeLessThan(0.55);
    expect(fable).toBeGreaterThan(tenth!);
    expect(fable).toBeLessThanOrEqual(unpriced!);
    // A model's preset prices the session as `pricing` does.
    const byModel = await firstCompaction({ ...base, model: "claude-fable-5-1" });
    expect(byModel).toBe(fable);
  });
});
