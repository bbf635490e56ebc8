import { context, trace } from "@opentelemetry/api";
import { describe, expect, it, onTestFinished } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import {
  FakeSession,
  memoryTracing,
  StackContextManager,
} from "../../test/support/otel-tracing.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionBoundary } from "../session/hooks.js";
import type { StoredSession } from "../store/stored-session.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import {
  COMPACTION_ATTRIBUTES as A,
  COMPACTION_SPAN_NAME,
  GEN_AI_ATTRIBUTES as G,
} from "./attributes.js";
import { type TracedSession, traceCompactions } from "./trace-compactions.js";
import { traceLlmClient } from "./trace-llm-client.js";

const boundary: CompactionBoundary = {
  trigger: "auto",
  strategy: "llm",
  tokensBefore: 9_000,
  tokensAfter: 2_000,
  turnsCompacted: 4,
  toolResultsCompacted: 0,
  toolInputsCleared: 0,
  thinkingBlocksDropped: 1,
  thinkingTokensDropped: 50,
  toolExchangeClosed: false,
  messagesRemoved: 0,
};

const start = {
  type: "compaction_start",
  trigger: "auto",
  strategy: "llm",
  contextUsed: 9_500,
  contextLimit: 10_000,
} as const;
const end = {
  type: "compaction_end",
  trigger: "auto",
  strategy: "llm",
  result: { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 4 },
  tokensBefore: 9_000,
  tokensAfter: 2_000,
  contextUsedBefore: 9_500,
  contextUsedAfter: 2_400,
  boundary,
} as const;

describe("traceCompactions", () => {
  it("makes each run a span with strategy, trigger, tokens and messages before and after, outcome", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    session.messages = Array.from({ length: 12 }, () => ({}));
    traceCompactions(session, { tracer });
    session.emit(start);
    session.messages = session.messages.slice(0, 3);
    session.emit(end);
    expect(spans()).toHaveLength(1);
    const [span] = spans();
    expect(span?.name).toBe(COMPACTION_SPAN_NAME);
    expect(span?.attributes).toMatchObject({
      [A.STRATEGY]: "llm",
      [A.TRIGGER]: "auto",
      [A.OUTCOME]: "compacted",
      [A.TOKENS_BEFORE]: 9_000,
      [A.TOKENS_AFTER]: 2_000,
      [A.MESSAGES_BEFORE]: 12,
      [A.MESSAGES_AFTER]: 3,
      [A.CONTEXT_USED_BEFORE]: 9_500,
      [A.CONTEXT_USED_AFTER]: 2_400,
      [A.CONTEXT_LIMIT]: 10_000,
      [A.TURNS_COMPACTED]: 4,
      [A.THINKING_BLOCKS_DROPPED]: 1,
      [G.CONVERSATION_ID]: "session-otel",
    });
  });

  it("makes the summarizer's request a chat child span of the run, with GenAI usage", async () => {
    const { tracer, spans } = memoryTracing();
    const inner = {
      complete: async () => ({
        text: "Summary.",
        usage: {
          inputTokens: 100,
          outputTokens: 20,
          cacheReadInputTokens: 800,
          cacheCreationInputTokens: 50,
        },
      }),
    };
    const summarizer = traceLlmClient(inner as never, {
      model: "claude-haiku-4-5",
      provider: "anthropic",
      tracer,
    });
    const session = new FakeSession();
    traceCompactions(session, { tracer, summarizer });
    session.emit(start);
    await summarizer.complete({ prompt: "Summarize.", maxTokens: 512 });
    // A request of another session's run (one this tracing did not open) is not this run's.
    await summarizer.complete({ prompt: "Summarize.", runId: "another-session-run" });
    session.emit(end);
    const others = spans().filter((span) => span.name === "chat claude-haiku-4-5");
    expect(others.at(-1)?.parentSpanContext).toBeUndefined();
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    const chat = spans().find((span) => span.name === "chat claude-haiku-4-5");
    expect(chat?.parentSpanContext?.spanId).toBe(compaction?.spanContext().spanId);
    expect(chat?.attributes).toEqual({
      [G.OPERATION_NAME]: "chat",
      [G.REQUEST_MODEL]: "claude-haiku-4-5",
      [G.PROVIDER_NAME]: "anthropic",
      [G.REQUEST_MAX_TOKENS]: 512,
      [G.USAGE_INPUT_TOKENS]: 950,
      [G.USAGE_OUTPUT_TOKENS]: 20,
      [G.USAGE_CACHE_READ_INPUT_TOKENS]: 800,
      [G.USAGE_CACHE_WRITE_INPUT_TOKENS]: 50,
    });
    // A request outside a run is not parented to a finished run.
    await summarizer.complete({ prompt: "Again." });
    expect(spans().at(-1)?.parentSpanContext).toBeUndefined();
  });

  it("records a server-side compaction's cost, and its request as a chat child span from result.usage", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    const pricing = { inputPerMTok: 10, outputPerMTok: 50, cacheReadMultiplier: 0.025 };
    traceCompactions(session, { tracer, summarizerModel: "claude-fable-5-1", pricing });
    const usage = { inputTokens: 3_000, outputTokens: 400, cacheReadInputTokens: 10_000 };
    session.emit({ ...start, strategy: "anthropic" });
    session.emit({ ...end, strategy: "anthropic", result: { ...end.result, usage } });
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compaction?.attributes).toMatchObject({
      [A.COST_INPUT_TOKENS]: 3_000,
      [A.COST_OUTPUT_TOKENS]: 400,
      [A.COST_CACHE_READ_INPUT_TOKENS]: 10_000,
      [A.COST_CACHE_WRITE_INPUT_TOKENS]: 0,
    });
    // 3,000 × $10 + 10,000 × $0.25 + 400 × $50, per million tokens.
    expect(compaction?.attributes[A.COST_USD]).toBeCloseTo(0.0525, 10);
    const chat = spans().find((span) => span.name === "chat claude-fable-5-1");
    expect(chat?.parentSpanContext?.spanId).toBe(compaction?.spanContext().spanId);
    expect(chat?.attributes[G.USAGE_INPUT_TOKENS]).toBe(13_000);
  });

  it("reports a failed run as an error span with the code, and a skipped one with its reason", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    traceCompactions(session, { tracer });
    session.emit(start);
    const error = new CompactionError("timeout", "summary timed out");
    session.emit({
      type: "compaction_failed",
      trigger: "auto",
      strategy: "llm",
      error,
      consecutiveFailures: 1,
    });
    session.emit({
      type: "compaction_skipped",
      trigger: "auto",
      strategy: "threshold",
      reason: "nothing_to_compact",
      detail: "no old tool results",
    });
    const [failed, skipped] = spans();
    expect(failed?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(failed?.attributes).toMatchObject({
      [A.OUTCOME]: "failed",
      [A.ERROR_CODE]: "timeout",
      [G.ERROR_TYPE]: "timeout",
    });
    expect(skipped?.attributes).toMatchObject({
      [A.OUTCOME]: "skipped",
      [A.SKIP_REASON]: "nothing_to_compact",
      [A.STRATEGY]: "threshold",
    });
  });

  it("makes a sync run (no start event) and an overflow trim spans of their own", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    traceCompactions(session, { tracer });
    session.emit({ ...end, strategy: "threshold" });
    session.emit({
      type: "context_trimmed",
      trigger: "auto",
      removed: [],
      contextUsedBefore: 12_000,
      contextUsedAfter: 7_000,
      thinkingBlocksDropped: 0,
    });
    expect(spans().map((span) => span.attributes[A.STRATEGY])).toEqual(["threshold", "trim"]);
    expect(spans()[0]?.attributes[A.MESSAGES_BEFORE]).toBeUndefined();
    expect(spans()[1]?.attributes).toMatchObject({
      [A.OUTCOME]: "trimmed",
      [A.MESSAGES_REMOVED]: 0,
      [A.CONTEXT_USED_AFTER]: 7_000,
    });
  });

  it("nests the run under the span active when the session emits", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    traceCompactions(session, { tracer });
    context.setGlobalContextManager(new StackContextManager());
    onTestFinished(() => context.disable());
    const outer = tracer.startSpan("agent turn");
    context.with(trace.setSpan(context.active(), outer), () =>
      session.emit({ ...end, strategy: "threshold" }),
    );
    outer.end();
    expect(spans()[0]?.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it("stops: unsubscribes and ends a span left open", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    const stop = traceCompactions(session, { tracer });
    session.emit(start);
    stop();
    expect(session.listenerCount).toBe(0);
    expect(spans()).toHaveLength(1);
    session.emit(end);
    expect(spans()).toHaveLength(1);
  });

  it("records nothing and computes nothing without a registered tracer provider; the global one once registered", async () => {
    let reads = 0;
    const session = new FakeSession();
    Object.defineProperty(session, "messages", {
      get: () => {
        reads += 1;
        return [];
      },
    });
    const summarizer = traceLlmClient(new MockLlmClient().reply("A summary."), { model: "m" });
    traceCompactions(session, { summarizer });
    session.emit(start);
    await expect(summarizer.complete({ prompt: "p" })).resolves.toBe("A summary.");
    session.emit(end);
    expect(reads).toBe(0);

    const { provider, spans } = memoryTracing();
    trace.setGlobalTracerProvider(provider);
    onTestFinished(() => trace.disable());
    session.emit(start);
    await summarizer.complete({ prompt: "p" });
    session.emit(end);
    expect(spans().map((span) => span.name)).toEqual(["chat m", COMPACTION_SPAN_NAME]);
    expect(reads).toBe(2);
  });

  it("refuses what is not a session, a tracer or a traced client, naming the field", () => {
    expect(() => traceCompactions({} as never)).toThrow(ValidationError);
    const session = new FakeSession();
    expect(() => traceCompactions(session, { tracer: {} as never })).toThrow(/tracer/);
    expect(() => traceCompactions(session, { summarizer: new MockLlmClient() })).toThrow(
      /summarizer/,
    );
  });
});

describe("traceCompactions on a real session", () => {
  it("traces AgentSession's runs, the summarizer's request as their child", async () => {
    const { tracer, spans } = memoryTracing();
    const summarizer = traceLlmClient(
      new MockLlmClient().reply({
        text: "Goal: fix the build.",
        usage: { inputTokens: 900, outputTokens: 40 },
      }),
      { model: "claude-haiku-5-5", tracer },
    );
    const session = new AgentSession({
      contextLimit: 4_000,
      compactor: false,
      llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1 }),
    });
    const traced: TracedSession = session; // AgentSession fits, and so does StoredSession:
    const storedFits: StoredSession extends TracedSession ? true : never = true;
    expect(storedFits).toBe(true);
    traceCompactions(traced, { tracer, summarizer });
    const read = (path: string) => ({ name: "read", input: { path }, result: "x".repeat(3_600) });
    const conversation = new ConversationBuilder({ sessionId: session.sessionId })
      .user("Fix the build. Never touch package-lock.json.")
      .toolCalls(["a.ts", "b.ts", "c.ts", "d.ts"].map(read))
      .assistant("I read the four files.")
      .user("Now run the tests.");
    session.append(...conversation.build());
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    const chat = spans().find((span) => span.name === "chat claude-haiku-5-5");
    expect(compaction?.attributes).toMatchObject({
      [A.STRATEGY]: "llm",
      [A.OUTCOME]: "compacted",
      [A.COST_INPUT_TOKENS]: 900,
      [G.CONVERSATION_ID]: session.sessionId,
    });
    expect(compaction?.attributes[A.MESSAGES_AFTER]).toBeLessThan(
      Number(compaction?.attributes[A.MESSAGES_BEFORE]),
    );
    expect(chat?.parentSpanContext?.spanId).toBe(compaction?.spanContext().spanId);
    expect(chat?.attributes[G.USAGE_INPUT_TOKENS]).toBe(900);
  });

  it("a synchronous compactor's span counts the messages before and after too", async () => {
    const { tracer, spans } = memoryTracing();
    const session = new AgentSession({
      contextLimit: 4_000,
      compactor: {
        type: "threshold",
        config: { toolCompaction: "redact", threshold: 0.1, keepRecentTurns: 1 },
      },
    });
    traceCompactions(session, { tracer });
    const read = (path: string) => ({ name: "read", input: { path }, result: "x".repeat(3_600) });
    session.append(
      ...new ConversationBuilder({ sessionId: session.sessionId })
        .user("Read them.")
        .toolCalls(["a.ts", "b.ts", "c.ts"].map(read))
        .assistant("Read.")
        .user("Next.")
        .build(),
    );
    expect((await session.maybeCompact()).compacted).toBe(true);
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compaction?.attributes[A.MESSAGES_BEFORE]).toBe(session.messages.length);
    expect(compaction?.attributes[A.MESSAGES_AFTER]).toBe(session.messages.length);
  });
});

describe("the span of a run without a start event (a synchronous compactor's)", () => {
  it("records the window and the messages the default compactor removed (review 59f, F4)", async () => {
    const { tracer, spans } = memoryTracing();
    const session = new AgentSession({ contextLimit: 4_000 });
    traceCompactions(session, { tracer });
    session.append(...fourReads(session.sessionId));
    const report = await session.maybeCompact();
    const removed = report.boundaries[0]?.messagesRemoved ?? 0;
    expect(removed).toBeGreaterThan(0);
    const span = spans().find((each) => each.name === COMPACTION_SPAN_NAME);
    expect(span?.attributes[A.STRATEGY]).toBe("threshold");
    expect(span?.attributes[A.MESSAGES_REMOVED]).toBe(removed);
    expect(span?.attributes[A.CONTEXT_LIMIT]).toBe(4_000);
  });
});
