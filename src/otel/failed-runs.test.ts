import type { Span, Tracer } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { LlmClient } from "../core/llm-client.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession, type StoredSession } from "../store/stored-session.js";
import { COMPACTION_ATTRIBUTES as A, COMPACTION_SPAN_NAME } from "./attributes.js";
import { MAX_ATTRIBUTE_CHARS, MAX_STACKTRACE_CHARS, MAX_STATUS_CHARS } from "./safe-span.js";
import { traceCompactions } from "./trace-compactions.js";
import { traceLlmClient } from "./trace-llm-client.js";

/** A session due for a summary by `client`. */
function dueSession(client: LlmClient): AgentSession {
  const session = new AgentSession({
    contextLimit: 4_000,
    compactor: false,
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
  });
  session.append(...fourReads(session.sessionId));
  return session;
}

const exceptionOf = (span: { events: { name: string; attributes?: object }[] } | undefined) =>
  span?.events.find((event) => event.name === "exception")?.attributes as
    | Record<string, string>
    | undefined;

describe("a failed run's span records the exception", () => {
  it("as an exception event, each part bounded (a 1 MB provider message)", async () => {
    const { tracer, spans } = memoryTracing();
    const content = "provider said ".repeat(80_000);
    const summarizer = traceLlmClient(
      {
        complete: async () => {
          throw new TypeError(`503 upstream: ${content}`);
        },
      },
      { model: "m", tracer },
    );
    const session = dueSession(summarizer);
    traceCompactions(session, { tracer, summarizer });
    expect((await session.maybeCompact()).error?.code).toBe("llm_error");
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    const exception = exceptionOf(compaction);
    expect(exception?.["exception.type"]).toBe("CompactionError");
    expect(exception?.["exception.message"]).toMatch(/^summarizer failed: 503 upstream: provider/);
    expect(exception?.["exception.message"]?.length).toBe(MAX_STATUS_CHARS);
    const stack = exception?.["exception.stacktrace"] ?? "";
    expect(stack.length).toBeLessThanOrEqual(MAX_STACKTRACE_CHARS);
    // The frames after the cut message, not the message's 1 MB alone.
    expect(stack).toMatch(/^CompactionError: summarizer failed: 503/);
    expect(stack).toContain("\n    at ");
    const chat = exceptionOf(spans().find((span) => span.name === "chat m"));
    expect(chat?.["exception.type"]).toBe("TypeError");
    expect(chat?.["exception.message"]?.length).toBe(MAX_STATUS_CHARS);
    for (const span of spans())
      for (const event of span.events)
        for (const value of Object.values(event.attributes ?? {}))
          expect(String(value).length).toBeLessThanOrEqual(MAX_STACKTRACE_CHARS);
  });

  it("a thrown non-Error and a huge class name are bounded too", async () => {
    const { tracer, spans } = memoryTracing();
    class Huge extends Error {
      override name = "N".repeat(100_000);
    }
    for (const thrown of ["x".repeat(100_000), new Huge("boom")]) {
      const failing = traceLlmClient(
        {
          complete: async () => {
            throw thrown;
          },
        },
        { model: "m", tracer },
      );
      await expect(failing.complete({ prompt: "p" })).rejects.toBe(thrown);
    }
    const [text, huge] = spans().map(exceptionOf);
    expect(text?.["exception.message"]?.length).toBe(MAX_STATUS_CHARS);
    expect(huge?.["exception.type"]?.length).toBe(MAX_ATTRIBUTE_CHARS);
    expect(huge?.["exception.stacktrace"]?.length).toBeLessThanOrEqual(MAX_STACKTRACE_CHARS);
  });

  it("a span whose recordException throws: the failure is reported as the compaction's own", async () => {
    const { tracer: real, spans } = memoryTracing();
    const breaking = (span: Span): Span =>
      new Proxy(span, {
        get: (target, key) =>
          key === "recordException"
            ? () => {
                throw new Error("recordException broke");
              }
            : Reflect.get(target, key, target),
      });
    const tracer = {
      startSpan: (...args: Parameters<Tracer["startSpan"]>) => breaking(real.startSpan(...args)),
      startActiveSpan: real.startActiveSpan.bind(real),
    } as Tracer;
    const summarizer = traceLlmClient(
      {
        complete: async () => {
          throw new Error("overloaded");
        },
      },
      { model: "m", tracer },
    );
    const session = dueSession(summarizer);
    traceCompactions(session, { tracer, summarizer });
    const report = await session.maybeCompact();
    expect(report.error?.message).toBe("summarizer failed: overloaded");
    const compaction = spans().find((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compaction?.attributes[A.OUTCOME]).toBe("failed");
  });
});

describe("a forceCompact that lost every race", () => {
  it("ends in an error span (aborted) after each discarded run's span", async () => {
    const { tracer, spans } = memoryTracing();
    const store = new MemoryStore();
    const id = "conversation-raced";
    const fill = async (session: StoredSession, turns: number, label: string) => {
      for (let turn = 1; turn <= turns; turn += 1) {
        await session.addUserText(`${label} ${turn}: ${"a request with some detail ".repeat(8)}`);
        await session.addAssistant([
          { type: "text", text: `answer ${turn} ${"words ".repeat(30)}` },
        ]);
      }
    };
    await fill(await openSession(store, id, { contextLimit: 200_000 }), 6, "turn");
    const later = store.withClock(() => new Date(Date.now() + 3_600_000));
    const summarizer = traceLlmClient(
      {
        complete: async () => {
          // Another worker, past this one's lease, compacts while this one summarizes.
          const fast = await openSession(later, id, {
            contextLimit: 200_000,
            compactor: false,
            llmCompactor: new LLMCompactor(
              { complete: async () => "the fast summary" },
              { keepRecentTurns: 1 },
            ),
          });
          await fill(fast, 1, "one more");
          await fast.forceCompact();
          return "the late summary";
        },
      },
      { model: "m", tracer },
    );
    const slow = await openSession(store, id, {
      contextLimit: 200_000,
      compactor: false,
      llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1 }),
      maxAttempts: 1,
    });
    traceCompactions(slow, { tracer, summarizer });
    await expect(slow.forceCompact()).rejects.toMatchObject({ code: "aborted" });
    const compactions = spans().filter((span) => span.name === COMPACTION_SPAN_NAME);
    expect(compactions.map((span) => span.attributes[A.OUTCOME])).toEqual(["skipped", "failed"]);
    expect(compactions[1]?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(compactions[1]?.attributes[A.ERROR_CODE]).toBe("aborted");
    expect(compactions[1]?.attributes[A.TRIGGER]).toBe("manual");
  });
});
