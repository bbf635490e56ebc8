import fc from "fast-check";
import { describe, it } from "vitest";
import {
  type AsyncCompactor,
  createCompactor,
  LLMCompactor,
  ThresholdCompactor,
} from "../../src/index.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { longTurnArbitrary, trajectoryArbitrary } from "../arbitraries/trajectory.js";
import {
  caseArbitrary,
  checkAsync,
  checkSync,
  contextArbitrary,
  hybridConfigArbitrary,
  llmConfigArbitrary,
  RUNS,
  TIMEOUT,
  thresholdConfigArbitrary,
} from "./compactor-checks.js";
import { seed } from "./invariants.js";

describe("compactor properties over random trajectories: synchronous paths and long turns", () => {
  it(
    "ThresholdCompactor (random configs): valid, idempotent, never larger, latest untouched, input unchanged",
    () => {
      fc.assert(
        fc.property(
          caseArbitrary(trajectoryArbitrary()),
          thresholdConfigArbitrary,
          contextArbitrary,
          ({ messages, summaries }, config, context) => {
            checkSync(new ThresholdCompactor(config), messages, summaries, context);
          },
        ),
        { seed: seed(4001), numRuns: 3000 * RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "createCompactor: whichever type and config, the same guarantees",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          caseArbitrary(trajectoryArbitrary({ maxTurns: 5 })),
          fc.oneof(
            thresholdConfigArbitrary.map((config) => ({ type: "threshold" as const, config })),
            llmConfigArbitrary.map((config) => ({ type: "llm" as const, config })),
            hybridConfigArbitrary.map((config) => ({ type: "hybrid" as const, config })),
          ),
          contextArbitrary,
          async ({ messages, summaries }, type, context) => {
            const client = new MockLlmClient();
            const compactor = createCompactor(type, client);
            if (compactor.isAsync)
              await checkAsync(compactor as AsyncCompactor, client, messages, summaries, context);
            else checkSync(compactor, messages, summaries, context);
          },
        ),
        { seed: seed(4003), numRuns: 1000 * RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "very long single turns (hundreds of tool calls) with both compactors",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          caseArbitrary(longTurnArbitrary()),
          thresholdConfigArbitrary,
          llmConfigArbitrary,
          contextArbitrary,
          async ({ messages, summaries }, thresholdConfig, llmConfig, context) => {
            checkSync(new ThresholdCompactor(thresholdConfig), messages, summaries, context);
            const client = new MockLlmClient();
            await checkAsync(
              new LLMCompactor(client, llmConfig),
              client,
              messages,
              summaries,
              context,
            );
          },
        ),
        { seed: seed(4004), numRuns: 150 * RUNS },
      );
    },
    TIMEOUT,
  );
});
