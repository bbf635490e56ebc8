import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runsIn } from "../../bench/replay.js";
import { replayRetention } from "../../bench/retention-replay.js";
import { simulate } from "../../bench/simulate.js";
import { STRATEGIES } from "../../bench/strategies.js";
import { generateTrajectory } from "../../bench/workload.js";

/**
 * Issue 23 §4, nothing forgotten: what a summarizing session still holds after long runs.
 * Before the file ledger and the cited facts, the hybrid kept 16% of the simulated paths at
 * 2,000 steps and 42–81% of the edited files of the two long Claude Code runs.
 */
const REALDATA =
  process.env["REALDATA_DIR"] ??
  fileURLToPath(new URL("../../../shared/realdata", import.meta.url));

describe("retention of the user's constraints and of file paths", () => {
  it("the hybrid keeps every constraint and at least 80% of paths after 2,000 simulated steps", async () => {
    const trajectory = generateTrajectory({ steps: 2000, shape: "short-turns", seed: 20_260_101 });
    const hybrid = STRATEGIES.find((strategy) => strategy.name === "hybrid")!;
    const { constraint, path } = (await simulate(trajectory, hybrid)).factsKeptByKind;
    expect(constraint.kept).toBe(constraint.planted);
    expect(path.kept / path.planted).toBeGreaterThanOrEqual(0.8);
  });

  it.skipIf(!existsSync(REALDATA))(
    `the hybrid keeps every edited file and 95% of touched paths of each real run (${REALDATA})`,
    async () => {
      for (const file of runsIn(REALDATA)) {
        const kept = await replayRetention(file, "hybrid", 64_000);
        expect(kept.editedKept, file).toBe(kept.edited);
        expect(kept.touchedKept, file).toBeGreaterThanOrEqual(Math.ceil(kept.touched * 0.95));
      }
    },
  );
});
