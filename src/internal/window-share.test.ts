import { describe, expect, it } from "vitest";
import { factsSectionBudget } from "../compactors/facts-check.js";
import { userWordsBudget } from "../compactors/summary-message.js";
import { windowShareBudget } from "./window-share.js";

describe("windowShareBudget", () => {
  const budget = { share: 0.1, unknownWindow: 2_000 };

  it("takes the option when given, whatever the window", () => {
    expect(windowShareBudget(7, 100_000, budget)).toBe(7);
    expect(windowShareBudget(0, undefined, budget)).toBe(0);
  });

  it("takes the share of the window, rounded down, and at least `least` when given", () => {
    expect(windowShareBudget(undefined, 12_345, budget)).toBe(1_234);
    expect(windowShareBudget(undefined, 1_000, { ...budget, least: 400 })).toBe(400);
  });

  it("falls back to `unknownWindow` without a window", () => {
    expect(windowShareBudget(undefined, undefined, budget)).toBe(2_000);
  });

  it("gives the facts section 1% (at least 400) and the user's words 10% (2,000 unknown)", () => {
    expect(factsSectionBudget(undefined, 200_000)).toBe(2_000);
    expect(factsSectionBudget(undefined, 10_000)).toBe(400);
    expect(factsSectionBudget(undefined, undefined)).toBe(400);
    expect(userWordsBudget(undefined, 10_000)).toBe(1_000);
    expect(userWordsBudget(undefined, undefined)).toBe(2_000);
    expect(userWordsBudget(50, 10_000)).toBe(50);
  });
});
