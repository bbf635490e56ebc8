import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keepingTrimOptions, trimOldest } from "../../src/compactors/overflow-trim.js";
import { estimateTokens } from "../../src/core/message-memo.js";
import {
  AgentSession,
  HybridCompactor,
  LLMCompactor,
  validateConversation,
} from "../../src/index.js";
import { sessionCompactors } from "../../src/session/options.js";
import { TRIM_AT } from "../../src/session/trim-share.js";
import { ConversationBuilder } from "../../src/testing/builders.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { RUNS, TIMEOUT } from "./compactor-checks.js";
import { seed } from "./invariants.js";

/** Agent runs of up to 12 turns of up to 10 tool calls, each message small beside the window. */
const agentRunArbitrary = fc
  .array(
    fc.record({
      request: fc.string({ minLength: 1, maxLength: 300 }),
      calls: fc.array(fc.integer({ min: 1, max: 800 }), { maxLength: 10 }),
      answer: fc.string({ minLength: 1, maxLength: 200 }),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((turns) => {
    const builder = new ConversationBuilder();
    turns.forEach((turn, index) => {
      builder.user(`${index}: ${turn.request}`);
      turn.calls.forEach((size, call) => {
        builder.toolCall({
          name: "read_file",
          input: { path: `f${index}-${call}.ts` },
          result: "r".repeat(size),
        });
      });
      builder.assistant(`done ${turn.answer.trim()}.`);
    });
    return builder.build();
  });

type Options = Partial<ConstructorParameters<typeof AgentSession>[0]>;

/** Each setup and the share of the window above which its compactor is due. */
const setups: [string, () => Options, number][] = [
  ["default", () => ({}), 0.75],
  [
    "default, priced",
    () => ({ pricing: { inputPerMTok: 3, outputPerMTok: 15, cacheReadMultiplier: 0.1 } }),
    0.75,
  ],
  [
    "llm",
    () => ({
      compactor: false as const,
      llmCompactor: new LLMCompactor(new MockLlmClient(), { threshold: 0.6, keepRecentTurns: 1 }),
    }),
    0.6,
  ],
  [
    // Masking first, then the summarizer: the summarizer's trigger is the one that holds.
    "default + llm",
    () => ({
      llmCompactor: new LLMCompactor(new MockLlmClient(), { threshold: 0.75, keepRecentTurns: 1 }),
    }),
    0.75,
  ],
  [
    "hybrid",
    () => ({
      compactor: new HybridCompactor({ client: new MockLlmClient(), threshold: 0.7 }),
    }),
    0.7,
  ],
];

describe("no compaction leaves the context above its trigger", () => {
  it(
    "after every automatic compaction the context is at or below the trigger, or nothing more can go",
    async () => {
      let compactions = 0;
      await fc.assert(
        fc.asyncProperty(
          agentRunArbitrary,
          fc.constantFrom(...setups),
          fc.integer({ min: 1500, max: 5000 }),
          async (messages, [name, options, trigger], contextLimit) => {
            const events: string[] = [];
            // The context the last resort found in this run, when it trimmed.
            let trimmedFrom: number | undefined;
            const setup = options();
            const session = new AgentSession({
              contextLimit,
              onEvent: (event) => {
                events.push(event.type);
                if (event.type === "context_trimmed") trimmedFrom = event.contextUsedBefore;
              },
              ...setup,
            });
            // The compactor that runs last (the session's own are alike: same options, same window).
            const last = sessionCompactors(setup, contextLimit).at(-1);
            for (const message of messages) {
              session.append(message);
              trimmedFrom = undefined;
              const report = await session.maybeCompact();
              if (!report.compacted) continue;
              compactions += 1;
              expect(validateConversation(session.messages), events.join(" ")).toEqual([]);
              if (report.contextUsedAfter <= trigger * contextLimit) continue;
              if (report.overWindow) continue;
              // Above it only when removing everything the last resort may remove (it keeps the
              // summaries, the latest request, the newest message, the notice's budgets and, while
              // the request fits, what the last compactor keeps whole) would not bring it there
              // either.
              const overhead = report.contextUsedAfter - estimateTokens(session.messages);
              const keepFrom =
                (trimmedFrom ?? report.contextUsedAfter) > TRIM_AT * contextLimit
                  ? undefined
                  : last?.keeps?.(session.messages, {
                      contextLimit,
                      contextUsed: report.contextUsedAfter,
                    });
              const least = trimOldest(session.messages, 0, {
                ...keepingTrimOptions(contextLimit),
                ...(keepFrom === undefined ? {} : { latestCut: keepFrom }),
              });
              const floor =
                least === undefined
                  ? report.contextUsedAfter
                  : overhead + estimateTokens(least.conversation);
              expect(floor, `${name} in ${contextLimit}: ${events.join(" ")}`).toBeGreaterThan(
                trigger * contextLimit,
              );
            }
          },
        ),
        { seed: seed(20261202), numRuns: 60 * RUNS },
      );
      // Not vacuous: the runs compact many times.
      expect(compactions).toBeGreaterThan(30);
    },
    TIMEOUT,
  );
});
