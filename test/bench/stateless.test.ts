import { describe, expect, it } from "vitest";
import {
  measureStatelessHere,
  type StatelessRow,
  statelessReadme,
  statelessTargets,
} from "../../bench/stateless.js";

/** A 10k row whose per-round CPU ratio is `ratio` (the timings themselves do not matter here). */
function row(ratio: number, messages = 10_000): StatelessRow {
  const timing = { medianMs: 1, minMs: 1, samples: 3 };
  const clock = {
    ours: timing,
    pruneMessages: timing,
    ratioOfMedians: 1,
    ratioOfMinimums: 1,
    rounds: { median: ratio, min: ratio, max: ratio },
  };
  return {
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
  it("judges the target on the 10k row's median per-round CPU ratio", () => {
    expect(statelessTargets([row(1.9)])[0]?.pass).toBe(true);
    expect(statelessTargets([row(2)])[0]?.pass).toBe(true);
    expect(statelessTargets([row(2.01)])[0]).toMatchObject({ pass: false });
    expect(statelessTargets([row(1.5, 1_000)])).toEqual([]);
  });

  it("does the same job as pruneMessages, and documents it in bench/README.md (no timing assertions)", async () => {
    const rows = await measureStatelessHere([200], () => ({ warmUps: 0, timed: 1 }));
    expect(rows[0]!.fullResults.ours).toBe(rows[0]!.fullResults.pruneMessages);
    const readme = statelessReadme(rows);
    expect(readme).toContain("## Part 6: a stateless server");
    expect(readme).toContain("compactModelMessages");
  });
});
