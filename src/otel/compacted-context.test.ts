import { readFileSync } from "node:fs";
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { toModelMessages } from "../ai-sdk/model-messages.js";
import { toAnthropicMessages } from "../anthropic/request.js";
import { toChatMessages } from "../chat-completions/chat-messages-out.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { Message } from "../core/message.js";
import { SUMMARY_PREFIX, TRIM_NOTICE } from "../core/summary-format.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { toGeminiContents } from "../gemini/contents-out.js";
import { toLangChainMessages } from "../langchain/messages-out.js";
import { toResponsesInput } from "../openai/responses-output.js";
import { AgentSession } from "../session/agent-session.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { GEN_AI_ATTRIBUTES as G } from "./attributes.js";
import { holdsCompaction, markCompactedConversation } from "./compacted-context.js";

const plain = new ConversationBuilder().user("Fix the build.").assistant("Done.").build();

afterEach(() => {
  trace.disable();
});

describe("holdsCompaction", () => {
  it("finds the summary message by its turn, and wire messages by the summary text or a compaction block", () => {
    const [first] = plain;
    if (first === undefined) throw new Error("no message");
    expect(holdsCompaction(plain)).toBe(false);
    expect(holdsCompaction([{ ...first, turnId: { ...SUMMARY_TURN_ID } }, ...plain])).toBe(true);
    expect(holdsCompaction([{ role: "user", content: `${SUMMARY_PREFIX}Goal: x.` }])).toBe(true);
    const joined = [
      { type: "text", text: "Pinned." },
      { type: "text", text: `${SUMMARY_PREFIX}Goal: x.` },
    ];
    expect(holdsCompaction([{ role: "user", content: joined }])).toBe(true);
    const block = { type: "compaction", content: "Summary.", signature: "sig" };
    expect(holdsCompaction([{ role: "assistant", content: [block] }])).toBe(true);
    expect(holdsCompaction([{ role: "assistant", content: [{ type: "opaque", block }] }])).toBe(
      true,
    );
    expect(holdsCompaction([{ type: "compaction", encrypted_content: "..." }])).toBe(true);
    expect(
      holdsCompaction([{ role: "user", content: "Summarize the previous conversation." }, null, 3]),
    ).toBe(false);
  });
});

/** A session of three turns whose summarizer folds the first two. */
function threeTurns(): AgentSession {
  const session = new AgentSession({
    contextLimit: 100_000,
    compactor: false,
    llmCompactor: new LLMCompactor(new MockLlmClient({ replies: ["Goal: fix the build."] }), {
      keepRecentTurns: 1,
    }),
  });
  for (const text of ["Read a.ts", "Read b.ts", "Fix the build"]) {
    session.addUserText(text);
    session.addAssistant([{ type: "text", text: `Done: ${text}. ${"detail ".repeat(40)}` }]);
  }
  return session;
}

/** `holdsCompaction` on each provider's form: none in `before`, one in `after`. */
function expectFoundInEveryForm(before: readonly Message[], after: readonly Message[]): void {
  const converters = {
    toAnthropicMessages,
    toResponsesInput,
    toModelMessages,
    toChatMessages,
    toGeminiContents,
    toLangChainMessages,
  } as const;
  for (const [name, convert] of Object.entries(converters)) {
    expect([name, holdsCompaction(convert(before))]).toEqual([name, false]);
    expect([name, holdsCompaction(convert(after))]).toEqual([name, true]);
  }
}

describe("holdsCompaction on every converter's output", () => {
  it("finds the summary in each provider's messages, and none before it", async () => {
    const session = threeTurns();
    const before = session.messages;
    await session.forceCompact();
    expectFoundInEveryForm(before, session.messages);
  });
});

describe("holdsCompaction after the default session's compaction", () => {
  it("finds the notice of messages removed in each provider's messages, as in the session's own", async () => {
    const session = new AgentSession({ contextLimit: 4_000 });
    session.append(...fourReads(session.sessionId));
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report.boundaries[0]?.messagesRemoved).toBeGreaterThan(0);
    expect(session.messages.some((message) => message.generated === "notice")).toBe(true);
    expect(holdsCompaction(session.messages)).toBe(true);
    expectFoundInEveryForm(before, session.messages);
    // A client that joins the notice and the request into one text.
    expect(holdsCompaction([{ role: "user", content: `${TRIM_NOTICE}\nnext` }])).toBe(true);
    expect(holdsCompaction([{ role: "user", content: `${TRIM_NOTICE}, said the user` }])).toBe(
      false,
    );
  });
});

describe("holdsCompaction on OpenAI Responses input", () => {
  it("finds the summary in toResponsesInput's items by its input_text part", async () => {
    const session = threeTurns();
    expect(holdsCompaction(toResponsesInput(session.messages))).toBe(false);
    await session.forceCompact();
    const input = toResponsesInput(session.messages);
    expect(input[0]).toMatchObject({ type: "message", role: "user" });
    expect((input[0] as { content: { type: string }[] }).content[0]?.type).toBe("input_text");
    expect(holdsCompaction(input)).toBe(true);
    const { tracer, spans } = memoryTracing();
    const span = tracer.startSpan("chat gpt-5.6-luna");
    expect(markCompactedConversation(input, span)).toBe(true);
    span.end();
    expect(spans()[0]?.attributes[G.CONVERSATION_COMPACTED]).toBe(true);
    expect(
      holdsCompaction([
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: `${SUMMARY_PREFIX}x` }],
        },
      ]),
    ).toBe(true);
  });
});

describe("markCompactedConversation", () => {
  it("sets gen_ai.conversation.compacted = true when the request holds a compaction, and never false", () => {
    const { tracer, spans } = memoryTracing();
    const compacted = tracer.startSpan("chat claude-sonnet-5-5");
    const fresh = tracer.startSpan("chat claude-sonnet-5-5");
    expect(
      markCompactedConversation([{ role: "user", content: `${SUMMARY_PREFIX}Goal.` }], compacted),
    ).toBe(true);
    expect(markCompactedConversation(plain, fresh)).toBe(false);
    compacted.end();
    fresh.end();
    expect(spans()[0]?.attributes[G.CONVERSATION_COMPACTED]).toBe(true);
    expect(G.CONVERSATION_COMPACTED in (spans()[1]?.attributes ?? {})).toBe(false);
  });

  it("marks the span it is given where no context manager makes one active, as docs/production.md does", async () => {
    const { provider, spans } = memoryTracing();
    trace.setGlobalTracerProvider(provider);
    const messages = [{ role: "user", content: `${SUMMARY_PREFIX}Goal.` }];
    await trace.getTracer("my-agent").startActiveSpan("chat claude-sonnet-5-5", async (span) => {
      // No context manager registered: startActiveSpan makes no span active.
      expect(trace.getActiveSpan()).toBeUndefined();
      expect(markCompactedConversation(messages)).toBe(false);
      expect(markCompactedConversation(messages, span)).toBe(true);
      span.end();
    });
    expect(spans()[0]?.attributes[G.CONVERSATION_COMPACTED]).toBe(true);
    // The traces block of docs/production.md passes its span, so it marks it under any setup.
    const page = readFileSync(new URL("../../docs/production.md", import.meta.url), "utf8");
    const start = page.indexOf("\n## Traces (OpenTelemetry)\n");
    expect(start).toBeGreaterThanOrEqual(0);
    const block = page.slice(start);
    const call =
      /startActiveSpan\("[^"]+", async \((\w+)\) => \{\s*markCompactedConversation\(messages(, \w+)?\)/.exec(
        block,
      );
    expect(call?.[2]).toBe(`, ${call?.[1]}`);
  });

  it("does nothing without an active span", () => {
    expect(markCompactedConversation([{ role: "user", content: `${SUMMARY_PREFIX}Goal.` }])).toBe(
      false,
    );
  });
});
