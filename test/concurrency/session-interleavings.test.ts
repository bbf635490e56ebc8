import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSummaryTurn } from "../../src/core/turn.js";
import {
  AgentSession,
  type AsyncCompactor,
  CompactionError,
  type CompactionEvent,
  type Compactor,
  HybridCompactor,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
  validateConversation,
} from "../../src/index.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { seed } from "../properties/invariants.js";
import { manualTimers } from "../support/manual-timers.js";

/**
 * Model-based interleavings: an agent loop appends messages, records usage and asks for
 * compactions while summaries resolve, fail, come back empty or hang (until their timeout),
 * in every order fast-check's scheduler picks. Afterwards no message is lost, duplicated or
 * reordered, and no two compactions ever overlapped.
 */

type Outcome = "ok" | "fail" | "empty" | "hang" | "huge";

type Action =
  | { kind: "user"; text: string }
  | { kind: "append" }
  | { kind: "assistantText"; text: string }
  | { kind: "assistantTools"; count: number }
  | { kind: "usage"; inputTokens: number }
  | { kind: "maybe" }
  | { kind: "maybeAbortable" }
  | { kind: "abortAll" }
  | { kind: "force" }
  | { kind: "tick" }
  | { kind: "deadline" };

const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("user" as const),
      text: fc.constantFrom("fix the bug", "also run the tests", "r ".repeat(200).trim()),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "append" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("assistantText" as const),
      text: fc.constantFrom("done", "a ".repeat(300).trim()),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("assistantTools" as const),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("usage" as const),
      inputTokens: fc.integer({ min: 0, max: 6000 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: "maybe" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "maybeAbortable" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "abortAll" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "force" as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: "tick" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "deadline" as const }) },
);

/** Wraps a compactor to count overlapping runs. */
function watched<C extends Compactor>(
  inner: C,
  overlap: { active: number; max: number; syncDuringAsync: number },
): C {
  const wrapper: Compactor & Partial<AsyncCompactor> = {
    isAsync: inner.isAsync,
    shouldCompact: (used, limit) => inner.shouldCompact(used, limit),
    compact: (conversation, summaries, context) => {
      if (overlap.active > 0) overlap.syncDuringAsync += 1;
      return inner.compact(conversation, summaries, context);
    },
  };
  const asyncInner = inner as unknown as AsyncCompactor;
  if (typeof asyncInner.compactAsync === "function") {
    wrapper.compactAsync = async (conversation, summaries, options) => {
      overlap.active += 1;
      overlap.max = Math.max(overlap.max, overlap.active);
      try {
        return await asyncInner.compactAsync(conversation, summaries, options);
      } finally {
        overlap.active -= 1;
      }
    };
  }
  return wrapper as C;
}

/** How many runs exercised what, so the properties cannot pass vacuously. */
const stats = { summarised: 0, failed: 0 };

async function run(
  s: fc.Scheduler,
  actions: Action[],
  outcomes: Outcome[],
  kind: "llm" | "hybrid",
): Promise<void> {
  const overlap = { active: 0, max: 0, syncDuringAsync: 0 };
  const client = new MockLlmClient({
    defaultReply: (request, index) => {
      const outcome = outcomes[index % outcomes.length]!;
      if (outcome === "hang") {
        return new Promise<string>((_, reject) => {
          request.signal?.addEventListener("abort", () => reject(new Error("aborted")), {
            once: true,
          });
        });
      }
      return s.schedule(Promise.resolve(outcome), `summary ${index}: ${outcome}`).then((value) => {
        if (value === "fail") throw new Error("503 from the summariser");
        if (value === "empty") return "   ";
        if (value === "huge") return "huge ".repeat(50_000);
        return `summary ${index}`;
      });
    },
  });
  const deadlines = manualTimers();
  const summaryConfig = {
    keepRecentTurns: 1,
    keepUserMessagesTokens: 50,
    summaryTimeoutMs: 1000,
    timers: deadlines.timers,
  };
  const llm =
    kind === "llm"
      ? new LLMCompactor(client, { ...summaryConfig, threshold: 0.5 })
      : new HybridCompactor({
          client,
          ...summaryConfig,
          threshold: 0.5,
          targetUtilization: 0.3,
        });
  const events: CompactionEvent[] = [];
  const session = new AgentSession({
    contextLimit: 4000,
    sessionId: "concurrency",
    maxConsecutiveFailures: 2,
    compactor: watched(
      new ThresholdCompactor({ keepRecentTurns: 1, toolCompaction: "redact" }),
      overlap,
    ),
    llmCompactor: watched(llm, overlap),
    // Only compaction is under test: the last resort's notice would be a second `u0` message.
    trimOnOverflow: false,
    onEvent: (event) => events.push(event),
  });

  const appended: string[] = [];
  const settled: Promise<unknown>[] = [];
  const aborts: AbortController[] = [];
  let pending: string[] = [];
  let toolCount = 0;
  let appendCount = 0;
  const answerPending = () => {
    const message = session.addToolResults(
      pending.map((toolUseId) => ({
        type: "tool_result" as const,
        toolUseId,
        content: "output ".repeat(40),
        isError: false,
        compactSummary: "ok",
      })),
    );
    appended.push(message.id);
    pending = [];
  };

  for (const action of actions) {
    switch (action.kind) {
      case "user":
        if (pending.length > 0) answerPending();
        else appended.push(session.addUserText(action.text).id);
        break;
      case "append": {
        if (pending.length > 0) {
          answerPending();
          break;
        }
        appendCount += 1;
        const message: Message = {
          role: "user",
          id: `appended-${appendCount}`,
          sessionId: "concurrency",
          turnId: { owner: "u", number: 1000 + appendCount },
          createdAt: new Date(0),
          content: [{ type: "text", text: "appended request" }],
        };
        session.append(message);
        appended.push(message.id);
        break;
      }
      case "assistantText":
      case "assistantTools":
        if (pending.length > 0) answerPending();
        else if (session.messages.length > 0) {
          if (action.kind === "assistantText") {
            appended.push(session.addAssistant([{ type: "text", text: action.text }]).id);
          } else {
            const ids = Array.from(
              { length: action.count },
              (_, i) => `toolu_c${toolCount + i + 1}`,
            );
            toolCount += action.count;
            appended.push(
              session.addAssistant(
                ids.map((id) => ({ type: "tool_use" as const, id, name: "read", input: {} })),
              ).id,
            );
            pending = ids;
          }
        }
        break;
      case "usage":
        session.recordUsage({ inputTokens: action.inputTokens });
        break;
      case "maybe":
        settled.push(session.maybeCompact());
        break;
      case "maybeAbortable": {
        const controller = new AbortController();
        aborts.push(controller);
        settled.push(session.maybeCompact({ signal: controller.signal }));
        break;
      }
      case "abortAll":
        for (const controller of aborts.splice(0)) controller.abort();
        break;
      case "force":
        settled.push(
          session.forceCompact().catch((error: unknown) => {
            expect(CompactionError.isInstance(error)).toBe(true);
          }),
        );
        break;
      case "tick":
        if (s.count() > 0) await s.waitOne();
        break;
      case "deadline":
        deadlines.fireAll();
        break;
    }
  }
  // Let every summary, failure and deadline play out.
  let done = false;
  const all = Promise.all(settled).then(() => {
    done = true;
  });
  while (!done) {
    await s.waitAll();
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Only hanging summaries are left: their deadlines pass.
    if (!done && s.count() === 0) deadlines.fireAll();
  }
  await all;

  expect(overlap.max).toBeLessThanOrEqual(1);
  expect(overlap.syncDuringAsync).toBe(0);
  expect(session.isCompacting).toBe(false);

  const final = session.messages;
  const summaries = final.filter(
    (message) => isSummaryTurn(message.turnId) && !appended.includes(message.id),
  );
  expect(summaries.length).toBeLessThanOrEqual(1);
  if (summaries.length === 1) expect(final[0]).toBe(summaries[0]);
  const kept = final.filter((message) => !summaries.includes(message)).map((message) => message.id);
  // No duplicates, nothing unknown, the original order.
  expect(new Set(kept).size).toBe(kept.length);
  const positions = kept.map((id) => appended.indexOf(id));
  expect(positions.every((position) => position >= 0)).toBe(true);
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
  // Only a summary removes messages, and only from the front: after the last one removed,
  // every message appended is still there.
  const removed = appended.filter((id) => !kept.includes(id));
  if (removed.length > 0) stats.summarised += 1;
  if (events.some((event) => event.type === "compaction_failed")) stats.failed += 1;
  if (removed.length > 0) {
    expect(summaries).toHaveLength(1);
    const lastRemoved = Math.max(...removed.map((id) => appended.indexOf(id)));
    expect(kept.filter((id) => appended.indexOf(id) > lastRemoved)).toEqual(
      appended.slice(lastRemoved + 1),
    );
  }
  expect(
    validateConversation(final).filter((problem) => problem.code !== "empty_conversation"),
  ).toEqual([]);
  // Every compaction_start of a run is closed, and failures are reported once per failed run.
  for (const event of events) {
    if (event.type === "compaction_failed")
      expect(CompactionError.isInstance(event.error)).toBe(true);
  }
}

const outcomesArbitrary = fc.array(
  fc.constantFrom<Outcome>("ok", "ok", "fail", "empty", "hang", "huge"),
  {
    minLength: 1,
    maxLength: 8,
  },
);

describe("session under interleaved appends, usage, compactions and summary outcomes", () => {
  it("LLMCompactor: nothing lost, duplicated or reordered; one compaction at a time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(actionArbitrary, { minLength: 5, maxLength: 50 }),
        outcomesArbitrary,
        async (s, actions, outcomes) => run(s, actions, outcomes, "llm"),
      ),
      { seed: seed(4201), numRuns: 400 },
    );
    expect(stats.summarised).toBeGreaterThan(40);
    expect(stats.failed).toBeGreaterThan(40);
  }, 180_000);

  it("HybridCompactor as the second stage: the same guarantees", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(actionArbitrary, { minLength: 5, maxLength: 50 }),
        outcomesArbitrary,
        async (s, actions, outcomes) => run(s, actions, outcomes, "hybrid"),
      ),
      { seed: seed(4202), numRuns: 300 },
    );
  }, 180_000);
});
