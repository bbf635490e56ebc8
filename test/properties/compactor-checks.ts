/** Shared arbitraries and checks of the compactor property suites. */
import fc from "fast-check";
import { expect } from "vitest";
import {
  type AsyncCompactor,
  type CompactionContext,
  CompactionError,
  type CompactionOutput,
  type CompactionResult,
  type Compactor,
  LLMCompactor,
  type Message,
  validateConversation,
} from "../../src/index.js";
import type { MockLlmClient } from "../../src/testing/index.js";
import { deepFreeze } from "../arbitraries/trajectory.js";
import { expectCompactionInvariants, snapshot, summariesArbitrary } from "./invariants.js";

// Runs per property (scale with FC_RUNS); the property files together run over 10,000 cases.
export const RUNS = Number(process.env["FC_RUNS"]) || 1;
export const TIMEOUT = 180_000;

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

export const thresholdConfigArbitrary = configArbitrary(maskingOptions, true);
export const llmConfigArbitrary = configArbitrary(summaryOptions, true);
export const hybridConfigArbitrary = configArbitrary(
  { ...maskingOptions, ...summaryOptions },
  true,
  true,
);

/** What a session tells a compactor: its window, its measure, and what triggered it. */
export const contextArbitrary = fc.option(
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
export const caseArbitrary = (conversations: fc.Arbitrary<Message[]>) =>
  conversations.chain((messages) =>
    summariesArbitrary(messages).map((summaries) => ({
      messages: deepFreeze(messages),
      summaries,
    })),
  );

/**
 * Short summaries mostly; now and then one too large to be worth applying (a skip when within
 * twice `maxSummaryTokens`, else refused: the mock passes no `maxTokens` on).
 */
export const summaryReplyArbitrary = fc.oneof(
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

export function checkSync(
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

/**
 * Whether the mock answered one of its requests from the `from`th on over twice the request's
 * `maxTokens` by the estimate: `reply`, or the mock's default reply when it is not given.
 */
function repliedOverBudget(client: MockLlmClient, reply: string | undefined, from: number) {
  return client.requests.slice(from).some((request, index) => {
    const text = reply ?? `Summary ${from + index + 1} of ${request.prompt.length} characters.`;
    return Math.ceil(text.trim().length / 4) > 2 * (request.maxTokens ?? Number.POSITIVE_INFINITY);
  });
}

/**
 * The compactor's output, or `undefined` when it refused a reply over twice `maxSummaryTokens`
 * (`summary_too_long`, the mock passing no `maxTokens` on): every such reply is refused, and
 * nothing else is.
 */
async function compactOrRefused(
  client: MockLlmClient,
  reply: string | undefined,
  run: () => Promise<CompactionOutput>,
): Promise<CompactionOutput | undefined> {
  const from = client.callCount;
  const output = await run().catch((error: unknown) => {
    expect(CompactionError.isInstance(error) && error.code).toBe("summary_too_long");
    return undefined;
  });
  const overBudget = repliedOverBudget(client, reply, from);
  expect(output === undefined, "a reply over twice maxTokens is refused, no other").toBe(
    overBudget,
  );
  return output;
}

export async function checkAsync(
  compactor: AsyncCompactor,
  client: MockLlmClient,
  messages: Message[],
  summaries: Map<string, string>,
  context?: CompactionContext,
  reply?: string,
) {
  const before = snapshot(messages);
  expect(validateConversation(messages)).toEqual([]);
  const callsBefore = client.callCount;
  // A summary that would not shrink the conversation is a skip, never a rejection; one over
  // twice maxSummaryTokens is refused, and changes nothing.
  const first = await compactOrRefused(client, reply, () =>
    compactor.compactAsync(messages, summaries, context),
  );
  expect(snapshot(messages)).toEqual(before);
  if (first === undefined) return;
  expectCompactionInvariants(messages, first.conversation, first.result);
  if (first.skipReason !== undefined) {
    expect(first.conversation).toEqual(messages);
    expect(first.result.turnsCompacted).toBe(0);
  }
  const calls = client.callCount;
  // A summary asked for and not applied (it would not shrink the conversation) is asked again.
  const summaryDeclined = calls > callsBefore && first.result.turnsCompacted === 0;
  const second = await compactOrRefused(client, reply, () =>
    compactor.compactAsync(
      deepFreeze(first.conversation),
      summaries,
      afterPass(context, first.result),
    ),
  );
  // Asked again after a skip, the mock's default reply may come out a character longer.
  if (second === undefined) {
    expect(summaryDeclined).toBe(true);
    return;
  }
  if (!summaryDeclined)
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
