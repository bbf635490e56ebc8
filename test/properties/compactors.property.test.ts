import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AsyncCompactor,
  type CompactionContext,
  CompactionError,
  type CompactionResult,
  type Compactor,
  createCompactor,
  HybridCompactor,
  isAsyncCompactor,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
  validateConversation,
} from "../../src/index.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { deepFreeze, longTurnArbitrary, trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { expectCompactionInvariants, seed, snapshot, summariesArbitrary } from "./invariants.js";

// Runs per property; the total across this file is over 10,000 cases.
const RUNS = Number(process.env.FC_RUNS) || 1;
const TIMEOUT = 180_000;

const TOOL_NAMES = ["read_file", "bash", "grep", "edit_file", "web_fetch", "memory"] as const;

/** A threshold and a target at or below it. */
const thresholdsArbitrary = fc
  .tuple(
    fc.double({ min: 0.01, max: 1, noNaN: true }),
    fc.double({ min: 0.01, max: 1, noNaN: true }),
  )
  .map(([a, b]) => ({ threshold: Math.max(a, b), targetUtilization: Math.min(a, b) }));

const maskingOptions = {
  keepRecentTurns: fc.integer({ min: 1, max: 6 }),
  toolCompaction: fc.constantFrom("summarize" as const, "redact" as const),
  keepRecentToolUses: fc.integer({ min: 1, max: 20 }),
  clearAtLeast: fc.integer({ min: 0, max: 3000 }),
  excludeTools: fc.subarray([...TOOL_NAMES]),
  clearToolInputs: fc.oneof(fc.boolean(), fc.subarray([...TOOL_NAMES])),
};

const summaryOptions = {
  keepRecentTurns: fc.integer({ min: 1, max: 6 }),
  summarySystemPrompt: fc.constantFrom("Summarise tersely.", "You write handoff notes."),
  maxSummaryTokens: fc.integer({ min: 1, max: 4096 }),
  summaryTimeoutMs: fc.integer({ min: 1, max: 120_000 }),
  maxTranscriptTokens: fc.integer({ min: 1, max: 60_000 }),
  summaryOverflow: fc.constantFrom("chunk" as const, "truncate" as const),
  clearAtLeast: fc.integer({ min: 0, max: 3000 }),
  maxToolInputChars: fc.integer({ min: 0, max: 3000 }),
  maxToolResultChars: fc.integer({ min: 0, max: 5000 }),
  keepUserMessagesTokens: fc.integer({ min: 0, max: 3000 }),
};

/** Any subset of the options, with a target never above the threshold. */
function configArbitrary<T extends Record<string, fc.Arbitrary<unknown>>>(
  options: T,
  target: boolean,
  alwaysTargetWithThreshold = false,
) {
  return fc
    .tuple(fc.record(options, { requiredKeys: [] }), thresholdsArbitrary, fc.nat(3))
    .map(([config, { threshold, targetUtilization }, pick]) => ({
      ...config,
      ...(pick & 1 ? { threshold } : {}),
      // The hybrid's default target (0.5) must not exceed a lower threshold: give one then.
      ...((target && pick & 2) || (alwaysTargetWithThreshold && pick & 1)
        ? { targetUtilization: Math.min(targetUtilization, pick & 1 ? threshold : 0.75) }
        : {}),
    }));
}

const thresholdConfigArbitrary = configArbitrary(maskingOptions, true);
const llmConfigArbitrary = configArbitrary(summaryOptions, true);
const hybridConfigArbitrary = configArbitrary({ ...maskingOptions, ...summaryOptions }, true, true);

/** What a session tells a compactor: its window, its measure, and what triggered it. */
const contextArbitrary = fc.option(
  fc.record(
    {
      contextLimit: fc.integer({ min: 1000, max: 400_000 }),
      contextUsed: fc.integer({ min: 0, max: 500_000 }),
      trigger: fc.constantFrom("auto" as const, "manual" as const),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

/** The context of a second pass: the measure went down by what the first pass freed. */
function afterPass(
  context: CompactionContext | undefined,
  result: CompactionResult,
): CompactionContext | undefined {
  if (context?.contextUsed === undefined) return context;
  const freed = (result.tokensBefore ?? 0) - (result.tokensAfter ?? result.tokensBefore ?? 0);
  return { ...context, contextUsed: Math.max(0, context.contextUsed - freed) };
}

/** A conversation and compact summaries for some of its tool results. */
const caseArbitrary = (conversations: fc.Arbitrary<Message[]>) =>
  conversations.chain((messages) =>
    summariesArbitrary(messages).map((summaries) => ({
      messages: deepFreeze(messages),
      summaries,
    })),
  );

/** Short summaries mostly; now and then one too large to be worth applying. */
const summaryReplyArbitrary = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      "The user asked to fix a bug; read two files.",
      "Done: A. Pending: B.",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 10_000, max: 40_000 }).map((n) => "long summary ".repeat(n / 13)),
  },
);

function checkSync(
  compactor: Compactor,
  messages: Message[],
  summaries: Map<string, string>,
  context?: CompactionContext,
) {
  const before = snapshot(messages);
  expect(validateConversation(messages)).toEqual([]);
  const first = compactor.compact(messages, summaries, context);
  expect(snapshot(messages)).toEqual(before);
  expectCompactionInvariants(messages, first.conversation, first.result);
  const second = compactor.compact(
    deepFreeze(first.conversation),
    summaries,
    afterPass(context, first.result),
  );
  expect(second.conversation).toEqual(first.conversation);
  expect(second.result).toMatchObject({
    toolResultsSummarized: 0,
    toolResultsRedacted: 0,
    turnsCompacted: 0,
  });
}

async function checkAsync(
  compactor: AsyncCompactor,
  client: MockLlmClient,
  messages: Message[],
  summaries: Map<string, string>,
  context?: CompactionContext,
) {
  const before = snapshot(messages);
  expect(validateConversation(messages)).toEqual([]);
  let first: Awaited<ReturnType<AsyncCompactor["compactAsync"]>>;
  try {
    first = await compactor.compactAsync(messages, summaries, context);
  } catch (error) {
    // Only a summary that would not shrink the conversation may be refused here.
    if (!CompactionError.isInstance(error)) throw error;
    expect(CompactionError.isInstance(error) && error.code).toBe("summary_too_large");
    expect(snapshot(messages)).toEqual(before);
    return;
  }
  expect(snapshot(messages)).toEqual(before);
  expectCompactionInvariants(messages, first.conversation, first.result);
  const calls = client.callCount;
  const second = await compactor.compactAsync(
    deepFreeze(first.conversation),
    summaries,
    afterPass(context, first.result),
  );
  expect(client.callCount, "compacting a compacted conversation asks no summary").toBe(calls);
  expect(second.conversation).toEqual(first.conversation);
  expect(second.result).toMatchObject({
    toolResultsSummarized: 0,
    toolResultsRedacted: 0,
    turnsCompacted: 0,
  });
  // The synchronous path of an async compactor changes nothing.
  if (compactor instanceof LLMCompactor)
    expect(compactor.compact(messages).conversation).toEqual(messages);
}

describe("compactor properties over random trajectories", () => {
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
            const compactor = new HybridCompactor(client, config);
            checkSync(compactor, messages, summaries, context);
            await checkAsync(compactor, client, messages, summaries, context);
          },
        ),
        { seed: seed(4006), numRuns: 1500 * RUNS },
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
            if (isAsyncCompactor(compactor))
              await checkAsync(compactor, client, messages, summaries, context);
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
