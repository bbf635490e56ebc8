import fc from "fast-check";
import { describe, it } from "vitest";
import { HybridCompactor, LLMCompactor, ThresholdCompactor } from "../../src/index.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { deepFreeze, trajectoryArbitrary } from "../arbitraries/trajectory.js";
import {
  caseArbitrary,
  checkAsync,
  checkSync,
  contextArbitrary,
  hybridConfigArbitrary,
  llmConfigArbitrary,
  RUNS,
  summaryReplyArbitrary,
  TIMEOUT,
  thresholdConfigArbitrary,
} from "./compactor-checks.js";
import { expectCompactionInvariants, seed } from "./invariants.js";

describe("compactor properties over random trajectories: summarising compactors", () => {
  it(
    "LLMCompactor (random configs, mock summariser): valid, idempotent, never larger, latest untouched, input unchanged",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          caseArbitrary(trajectoryArbitrary()),
          llmConfigArbitrary,
          summaryReplyArbitrary,
          contextArbitrary,
          async ({ messages, summaries }, config, reply, context) => {
            const client = new MockLlmClient({ defaultReply: reply });
            await checkAsync(
              new LLMCompactor(client, config),
              client,
              messages,
              summaries,
              context,
              reply,
            );
          },
        ),
        { seed: seed(4002), numRuns: 3500 * RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "HybridCompactor (random configs): the same guarantees, masking first",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          caseArbitrary(trajectoryArbitrary()),
          hybridConfigArbitrary,
          summaryReplyArbitrary,
          contextArbitrary,
          async ({ messages, summaries }, config, reply, context) => {
            const client = new MockLlmClient({ defaultReply: reply });
            const compactor = new HybridCompactor({ client, ...config });
            checkSync(compactor, messages, summaries, context);
            await checkAsync(compactor, client, messages, summaries, context, reply);
          },
        ),
        { seed: seed(4006), numRuns: 1500 * RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "the two compactors chained, as a session runs them",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          caseArbitrary(trajectoryArbitrary({ maxTurns: 9 })),
          thresholdConfigArbitrary,
          llmConfigArbitrary,
          async ({ messages, summaries }, thresholdConfig, llmConfig) => {
            const masked = new ThresholdCompactor(thresholdConfig).compact(messages, summaries);
            expectCompactionInvariants(messages, masked.conversation, masked.result);
            const client = new MockLlmClient();
            await checkAsync(
              new LLMCompactor(client, llmConfig),
              client,
              deepFreeze(masked.conversation),
              summaries,
            );
          },
        ),
        { seed: seed(4005), numRuns: 1000 * RUNS },
      );
    },
    TIMEOUT,
  );
});
