import type { Span, Tracer } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import { gate } from "../../test/support/gate.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { LlmClient } from "../core/llm-client.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession, type StoredSession } from "../store/stored-session.js";
import {
  COMPACTION_ATTRIBUTES as A,
  COMPACTION_SPAN_NAME,
  GEN_AI_ATTRIBUTES as G,
} from "./attributes.js";
import { MAX_ATTRIBUTE_CHARS, MAX_STATUS_CHARS } from "./safe-span.js";
import { traceCompactions } from "./trace-compactions.js";
import { traceLlmClient } from "./trace-llm-client.js";

/** A session due for a summary (as in trace-compactions.test.ts). */
function dueSession(client: LlmClient, sessionId?: string) {
  const session = new AgentSession({
    ...(sessionId === undefined ? {} : { sessionId }),
    contextLimit: 4_000,
    compactor: false,
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
  });
  session.append(...fourReads(session.sessionId));
  return session;
}

const summary = async () => ({
  text: "Goal: fix the build.",
  usage: { inputTokens: 9, outputTokens: 3 },
});

describe("tracing never breaks a compaction", () => {
  it("a tracer whose startSpan throws: the summary and the compaction go on, untraced", async () => {
    const throwing = {
      startSpan: () => {
        throw new Error("the tracer broke");
      },
      startActiveSpan: () => {
        throw new Error("the tracer broke");
      },
    } as unknown as Tracer;
    const summarizer = traceLlmClient({ complete: summary }, { model: "m", tracer: throwing });
    const session = dueSession(summarizer);
    traceCompactions(session, { tracer: throwing, summarizer });
    const report = await session.maybeCompact();
    expect(report.error).toBeUndefined();
    expect(report.compacted).toBe(true);
    expect(session.messages.some((message) => message.turnId.number === 0)).toBe(true);
  });

  it("spans whose methods throw: the reply passes through, an abort's listener throws nothing", async () => {
    const broken = (): Span =>
      new Proxy({} as Span, {
        get: (_target, key) => {
          if (key === "spanContext")
            return () => ({ traceId: "1".repeat(32), spanId: "1".repeat(16), traceFlags: 1 });
          return () => {
            throw new Error(`span.${String(key)} broke`);
          };
        },
      });
    const tracer = { startSpan: broken, startActiveSpan: broken } as unknown as Tracer;
    const summarizer = traceLlmClient({ complete: summary }, { model: "m", tracer });
    const session = dueSession(summarizer);
    traceCompactions(session, { tracer, summarizer });
    expect((await session.maybeCompact()).error).toBeUndefined();
    const hanging = traceLlmClient(
      { complete: () => new Promise<string>(() => {}) },
      { model: "m", tracer },
    );
    const controller = new AbortController();
    void hanging.complete({ prompt: "p", signal: controller.signal });
    expect(() => controller.abort()).not.toThrow();
  });
});

describe("span attributes stay bounded and carry no content", () => {
  it("a 1 MB error message, a 1 MB error code, a huge id and strategy: each cut", async () => {
    const { tracer, spans } = memoryTracing();
    const content = "user content ".repeat(80_000);
    const failing = traceLlmClient(
      {
        complete: async () => {
          const error = new Error(`503 upstream: ${content}`);
          throw Object.assign(error, { code: "C".repeat(1_000_000) });
        },
      },
      { model: "m".repeat(10_000), provider: "p".repeat(10_000), tracer },
    );
    const session = dueSession(failing, "id".repeat(100_000));
    traceCompactions(session, { tracer, summarizer: failing });
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("llm_error");
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    const chat = spans().find((span) => span.name.startsWith("chat "));
    expect(compaction?.attributes[A.OUTCOME]).toBe("failed");
    expect(compaction?.status.message?.length).toBeLessThanOrEqual(MAX_STATUS_CHARS);
    expect(compaction?.status.message).toMatch(/^summarizer failed: 503 upstream: user content/);
    expect(String(compaction?.attributes[G.CONVERSATION_ID]).length).toBe(MAX_ATTRIBUTE_CHARS);
    expect(String(chat?.attributes[G.ERROR_TYPE]).length).toBe(MAX_ATTRIBUTE_CHARS);
    expect(String(chat?.attributes[G.REQUEST_MODEL]).length).toBe(MAX_ATTRIBUTE_CHARS);
    expect(String(chat?.attributes[G.PROVIDER_NAME]).length).toBe(MAX_ATTRIBUTE_CHARS);
    for (const span of spans()) {
      expect(span.name.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS + 5);
      for (const value of Object.values(span.attributes)) {
        expect(String(value).length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS);
      }
    }
    // The trim after the failure: no attribute of any span reads the messages' content.
    expect(JSON.stringify(spans().map((span) => span.attributes))).not.toContain("xxxx");
  });

  it("a custom compactor's huge strategy name is cut", async () => {
    const { tracer, spans } = memoryTracing();
    const summarizer = traceLlmClient({ complete: summary }, { model: "m", tracer });
    const session = dueSession(summarizer);
    const strategy = "s".repeat(100_000);
    const compactor = Object.assign(new LLMCompactor(summarizer, { keepRecentTurns: 1 }), {
      strategy,
    });
    const custom = new AgentSession({
      sessionId: session.sessionId,
      contextLimit: 4_000,
      compactor: false,
      llmCompactor: compactor,
    });
    custom.append(...session.messages);
    traceCompactions(custom, { tracer, summarizer });
    expect((await custom.maybeCompact()).compacted).toBe(true);
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compaction?.attributes[A.OUTCOME]).toBe("compacted");
    expect(String(compaction?.attributes[A.STRATEGY])).toBe(
      `${strategy.slice(0, MAX_ATTRIBUTE_CHARS - 1)}…`,
    );
  });
});

describe("a stored session's discarded run", () => {
  it("ends its compaction span (skipped, conflict) when another worker compacted first", async () => {
    const { tracer, spans } = memoryTracing();
    const store = new MemoryStore();
    const id = "conversation-traced";
    const fill = async (session: StoredSession, turns: number, label: string) => {
      for (let turn = 1; turn <= turns; turn += 1) {
        await session.addUserText(`${label} ${turn}: ${"a request with some detail ".repeat(8)}`);
        await session.addAssistant([
          { type: "text", text: `answer ${turn} ${"words ".repeat(30)}` },
        ]);
      }
    };
    await fill(await openSession(store, id, { contextLimit: 200_000 }), 6, "turn");
    const running = gate();
    const late = gate();
    const summarizer = traceLlmClient(
      {
        complete: async () => {
          running.open();
          await late.opened;
          return "the late summary";
        },
      },
      { model: "m", tracer },
    );
    const slow = await openSession(store, id, {
      contextLimit: 200_000,
      compactor: false,
      llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1, threshold: 0.001 }),
      maxAttempts: 1,
    });
    traceCompactions(slow, { tracer, summarizer });
    const report = slow.maybeCompact();
    await running.opened;
    // Another worker, past the slow one's lease, compacts first.
    const later = store.withClock(() => new Date(Date.now() + 3_600_000));
    const fast = await openSession(later, id, {
      contextLimit: 200_000,
      compactor: false,
      llmCompactor: new LLMCompactor(
        { complete: async () => "the fast summary" },
        {
          keepRecentTurns: 1,
        },
      ),
    });
    await fill(fast, 1, "one more");
    await fast.forceCompact();
    late.open();
    expect(await report).toMatchObject({ compacted: false, discarded: "conflict" });
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compaction?.attributes).toMatchObject({
      [A.OUTCOME]: "skipped",
      [A.SKIP_REASON]: "conflict",
    });
    const chat = spans().find((span) => span.name === "chat m");
    expect(chat?.parentSpanContext?.spanId).toBe(compaction?.spanContext().spanId);
  });
});
