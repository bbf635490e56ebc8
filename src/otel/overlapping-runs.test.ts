import { describe, expect, it } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import { gate } from "../../test/support/gate.js";
import { FakeSession, memoryTracing } from "../../test/support/otel-tracing.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { AsyncCompactor } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionEvent } from "../session/events.js";
import { COMPACTION_ATTRIBUTES as A, COMPACTION_SPAN_NAME } from "./attributes.js";
import { traceCompactions } from "./trace-compactions.js";
import { traceLlmClient } from "./trace-llm-client.js";

function fill(session: AgentSession): void {
  session.append(...fourReads(session.sessionId));
}

const result = { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 2 };
const start = { type: "compaction_start", strategy: "llm", contextUsed: 9_000 } as const;
const ended = {
  type: "compaction_end",
  strategy: "llm",
  result,
  tokensBefore: 9_000,
  tokensAfter: 2_000,
  contextUsedBefore: 9_000,
  contextUsedAfter: 2_000,
  boundary: {
    trigger: "auto",
    strategy: "llm",
    tokensBefore: 9_000,
    tokensAfter: 2_000,
    turnsCompacted: 2,
    toolResultsCompacted: 0,
    toolInputsCleared: 0,
    messagesRemoved: 0,
    thinkingBlocksDropped: 0,
    thinkingTokensDropped: 0,
    toolExchangeClosed: false,
  },
} as const;

describe("overlapping compaction runs each end their own span", () => {
  it("two sessions sharing one tracing: each run's span has its start, its outcome and its request", async () => {
    const { tracer, spans } = memoryTracing();
    const entered = [gate(), gate()];
    const release = [gate(), gate()];
    let calls = 0;
    const summarizer = traceLlmClient(
      {
        complete: async () => {
          const call = calls++;
          entered[call]?.open();
          await release[call]?.opened;
          return { text: "Goal: fix the build.", usage: { inputTokens: 9, outputTokens: 3 } };
        },
      },
      { model: "m", tracer },
    );
    const sessions = ["session-a", "session-b"].map((sessionId) => {
      const session = new AgentSession({
        sessionId,
        contextLimit: 4_000,
        compactor: false,
        llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1 }),
      });
      fill(session);
      return session;
    });
    // The app's one subscription to all its sessions' events.
    const all = {
      messages: [] as unknown[],
      on(listener: (event: CompactionEvent) => void) {
        const offs = sessions.map((session) => session.on(listener));
        return () => {
          for (const off of offs) off();
        };
      },
    };
    traceCompactions(all, { tracer, summarizer });
    const first = sessions[0]!.maybeCompact();
    await entered[0]!.opened;
    const second = sessions[1]!.maybeCompact();
    await entered[1]!.opened;
    // A's run ends while B's is open, then B's.
    release[0]!.open();
    expect((await first).compacted).toBe(true);
    release[1]!.open();
    expect((await second).compacted).toBe(true);
    const compactions = spans().filter((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compactions).toHaveLength(2);
    for (const span of compactions) {
      expect(span.attributes[A.OUTCOME]).toBe("compacted");
      // Set by its start event: each span is the run that started it.
      expect(span.attributes[A.CONTEXT_LIMIT]).toBe(4_000);
      const children = spans().filter(
        (chat) => chat.parentSpanContext?.spanId === span.spanContext().spanId,
      );
      expect(children.map((chat) => chat.name)).toEqual(["chat m"]);
    }
  });

  it("a forced run of two summarizing compactors of one strategy: two spans, each its own outcome", async () => {
    const { tracer, spans } = memoryTracing();
    const custom = (turnsCompacted: number): AsyncCompactor =>
      ({
        isAsync: true,
        shouldCompact: () => true,
        compact: (conversation: readonly Message[]) => ({
          conversation: [...conversation],
          result,
        }),
        // The first drops the tool exchange; the second then finds nothing to drop.
        compactAsync: async (conversation: readonly Message[]) => ({
          conversation: [conversation[0]!, ...conversation.slice(-2)],
          result: { ...result, turnsCompacted },
        }),
      }) as AsyncCompactor;
    const session = new AgentSession({
      contextLimit: 4_000,
      compactor: custom(1),
      llmCompactor: custom(2),
    });
    fill(session);
    traceCompactions(session, { tracer });
    await session.forceCompact();
    const compactions = spans().filter((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compactions.map((span) => span.attributes[A.OUTCOME]).sort()).toEqual([
      "compacted",
      "skipped",
    ]);
    for (const span of compactions) expect(span.attributes[A.CONTEXT_LIMIT]).toBe(4_000);
    const compacted = compactions.find((span) => span.attributes[A.OUTCOME] === "compacted");
    expect(compacted?.attributes[A.TURNS_COMPACTED]).toBe(1);
  });

  it("ends the run each event names, whatever the order; an event naming no run as before", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    traceCompactions(session, { tracer });
    session.emit({ ...start, trigger: "auto", contextLimit: 10_000, runId: "run-1" });
    session.emit({ ...start, trigger: "auto", contextLimit: 20_000, runId: "run-2" });
    session.emit({ ...ended, trigger: "auto", runId: "run-2" });
    expect(spans().map((span) => span.attributes[A.CONTEXT_LIMIT])).toEqual([20_000]);
    // A sync run's end (naming no run) never ends a run whose start named one.
    session.emit({ ...ended, trigger: "auto", strategy: "llm" });
    expect(spans().at(-1)?.attributes[A.CONTEXT_LIMIT]).toBeUndefined();
    session.emit({ ...ended, trigger: "auto", runId: "run-1" });
    expect(spans().at(-1)?.attributes[A.CONTEXT_LIMIT]).toBe(10_000);
    expect(spans().at(-1)?.attributes[A.OUTCOME]).toBe("compacted");
  });

  it("holds at most 1,024 runs open: beyond, the oldest span ends", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    const stop = traceCompactions(session, { tracer });
    for (let run = 0; run <= 1_024; run += 1)
      session.emit({ ...start, trigger: "auto", contextLimit: run, runId: `run-${run}` });
    expect(spans().map((span) => span.attributes[A.CONTEXT_LIMIT])).toEqual([0]);
    stop();
    expect(spans()).toHaveLength(1_025);
  });
});
