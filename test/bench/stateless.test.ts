import { describe, expect, it } from "vitest";
import {
  measureStatelessHere,
  type StatelessRow,
  statelessReadme,
  statelessTargets,
} from "../../bench/stateless.js";
import { CONTENDERS, type ContenderName } from "../../bench/stateless-contenders.js";

/** A row whose per-round CPU ratio is `ratio` (the timings themselves do not matter here). */
function row(ratio: number, contender?: ContenderName, messages = 10_000): StatelessRow {
  const timing = { medianMs: 1, minMs: 1, samples: 3 };
  const clock = {
    ours: timing,
    pruneMessages: timing,
    ratioOfMedians: 1,
    ratioOfMinimums: 1,
    rounds: { median: ratio, min: ratio, max: ratio },
  };
  return {
    ...(contender === undefined ? {} : { contender }),
    messages,
    ours: timing,
    pruneMessages: timing,
    ratio: 1,
    wall: clock,
    cpu: clock,
    fullResults: { ours: 7, pruneMessages: 7 },
    processes: [{ cpu: ratio, wall: ratio }],
  };
}

describe("the stateless part", () => {
  it("judges first sight at 2x and warm at 0.5x pruneMessages, on the 10k rows' median per-round CPU ratio", () => {
    const pass = (ratio: number, contender?: ContenderName) =>
      statelessTargets([row(ratio, contender)])[0]?.pass;
    expect(pass(2, "core")).toBe(true);
    expect(pass(2.01, "core")).toBe(false);
    expect(pass(1.9, "anthropic")).toBe(true);
    expect(pass(0.5, "warm")).toBe(true);
    expect(pass(0.51, "warm")).toBe(false);
    // Older results timed only the AI SDK's path.
    expect(statelessTargets([row(1.5)])[0]?.target).toContain("compactModelMessages");
    expect(statelessTargets([row(1.5, "core", 1_000)])).toEqual([]);
  });

  it("each contender does the same job as pruneMessages, and bench/README.md says what it runs (no timing assertions)", async () => {
    const rows: StatelessRow[] = [];
    for (const name of CONTENDERS)
      rows.push(await measureStatelessHere(name, 200, () => ({ warmUps: 0, timed: 1 })));
    for (const each of rows) {
      expect(each.fullResults.ours, each.contender).toBe(each.fullResults.pruneMessages);
      expect(each.fullResults.ours, each.contender).toBeGreaterThan(0);
    }
    const readme = statelessReadme(rows);
    expect(readme).toContain("## Part 6: first sight and warm");
    for (const call of [
      "compactModelMessages",
      "compactLangChainMessages",
      "compactAnthropicMessages",
      "compactGeminiContents",
    ])
      expect(readme).toContain(call);
  });
});
