import { describe, expect, it } from "vitest";
import { gate } from "../../test/support/gate.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { LlmRequest } from "../core/llm-client.js";
import { AgentSession } from "../session/agent-session.js";
import { ConversationBuilder } from "../testing/builders.js";
import {
  COMPACTION_ATTRIBUTES as A,
  COMPACTION_SPAN_NAME,
  GEN_AI_ATTRIBUTES as G,
} from "./attributes.js";
import { traceCompactions } from "./trace-compactions.js";
import { traceLlmClient } from "./trace-llm-client.js";

describe("traceCompactions with one summarizer shared by sessions", () => {
  it("parents each session's summary spans under its own compaction, however the runs interleave", async () => {
    const { tracer, spans } = memoryTracing();
    // Each request waits until both runs have started, so the runs overlap; its usage tells
    // whose transcript it summarized.
    const bothStarted = gate();
    let started = 0;
    const inner = {
      complete: async (request: LlmRequest) => {
        await bothStarted.opened;
        const inputTokens = request.prompt.includes("alpha") ? 111 : 222;
        return { text: "Goal: fix the build.", usage: { inputTokens, outputTokens: 9 } };
      },
    };
    const summarizer = traceLlmClient(inner, { model: "claude-haiku-5-5", tracer });
    const sessions = ["alpha", "beta"].map((name) => {
      const session = new AgentSession({
        sessionId: `session-${name}`,
        contextLimit: 4_000,
        compactor: false,
        // Small transcript requests: each summary is written in several parts.
        llmCompactor: new LLMCompactor(summarizer, {
          keepRecentTurns: 1,
          maxTranscriptTokens: 1_200,
        }),
      });
      traceCompactions(session, { tracer, summarizer });
      session.on((event) => {
        if (event.type === "compaction_start" && ++started === 2) bothStarted.open();
      });
      const read = (path: string) => ({
        name: "read",
        input: { path: `${name}/${path}` },
        result: `${name} `.repeat(700),
      });
      session.append(
        ...new ConversationBuilder({ sessionId: `session-${name}` })
          .user(`Fix the ${name} build.`)
          .toolCalls(["a.ts", "b.ts", "c.ts", "d.ts"].map(read))
          .assistant("I read the four files.")
          .user("Now run the tests.")
          .build(),
      );
      return session;
    });
    const reports = await Promise.all(sessions.map((session) => session.maybeCompact()));
    expect(reports.map((report) => report.compacted)).toEqual([true, true]);
    const compactions = spans().filter((span) => span.name === COMPACTION_SPAN_NAME);
    const chats = spans().filter((span) => span.name === "chat claude-haiku-5-5");
    expect(compactions).toHaveLength(2);
    for (const compaction of compactions) {
      const children = chats.filter(
        (chat) => chat.parentSpanContext?.spanId === compaction.spanContext().spanId,
      );
      const own = compaction.attributes[G.CONVERSATION_ID] === "session-alpha" ? 111 : 222;
      expect(children.length).toBeGreaterThan(1);
      expect(children.map((chat) => chat.attributes[G.USAGE_INPUT_TOKENS])).toEqual(
        children.map(() => own),
      );
      // The run's cost is its own requests'.
      expect(compaction.attributes[A.COST_INPUT_TOKENS]).toBe(own * children.length);
    }
    expect(chats.every((chat) => chat.parentSpanContext !== undefined)).toBe(true);
  });
});
