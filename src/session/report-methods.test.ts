import { describe, expect, it } from "vitest";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { isSystemMessage } from "../core/conversation-structure.js";
import { validateConversation } from "../core/validate-conversation.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";
import type { CompactionEvent } from "./events.js";

describe("what the session reports", () => {
  it("adds a mid-conversation system message where the caller puts it", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    session.addUserText("hello");
    const message = session.addSystemMessage("From now on, answer in French.");
    expect(isSystemMessage(message)).toBe(true);
    expect(session.messages.at(-1)).toBe(message);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("sums what compactions cost where the compactor reports it", async () => {
    const session = new AgentSession({
      contextLimit: 10_000,
      compactor: false,
      llmCompactor: {
        isAsync: true,
        shouldCompact: () => true,
        compact: (conversation) => ({
          conversation: [...conversation],
          result: { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 },
        }),
        compactAsync: async (conversation) => ({
          conversation: [...conversation],
          result: {
            toolResultsSummarized: 0,
            toolResultsRedacted: 0,
            turnsCompacted: 0,
            usage: { inputTokens: 900, outputTokens: 120, cacheReadInputTokens: 50 },
          },
        }),
      },
    });
    expect(session.compactionUsage).toEqual({ inputTokens: 0, outputTokens: 0 });
    session.addUserText("hello");
    await session.maybeCompact();
    const forced = await session.forceCompact();
    // forceCompact's result says what it cost, as compactionUsage counts it.
    expect(forced.usage).toEqual({ inputTokens: 900, outputTokens: 120, cacheReadInputTokens: 50 });
    expect(session.compactionUsage).toEqual({
      inputTokens: 1800,
      outputTokens: 240,
      cacheReadInputTokens: 100,
    });
  });
});

describe("forceCompact's usage", () => {
  it("sums a summarizer's usage over the steps, and is absent when nothing reported one", async () => {
    const client = new MockLlmClient().reply({
      text: "The early turns, summarized.",
      usage: { inputTokens: 2_000, outputTokens: 150 },
    });
    const session = new AgentSession({
      contextLimit: 100_000,
      llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
    });
    for (let turn = 1; turn <= 3; turn += 1) {
      session.addUserText(`turn ${turn} ${"words ".repeat(60)}`);
      session.addAssistant([{ type: "text", text: `answer ${turn} ${"words ".repeat(60)}` }]);
    }
    const result = await session.forceCompact();
    expect(result.turnsCompacted).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 2_000, outputTokens: 150 });
    expect(session.compactionUsage).toEqual(result.usage);
    const unpriced = new AgentSession({ contextLimit: 100_000 });
    unpriced.addUserText("hello");
    expect((await unpriced.forceCompact()).usage).toBeUndefined();
  });
});

describe("a warning about the configured window", () => {
  it("reaches a listener subscribed after the constructor, once, as it reached onEvent", () => {
    const early: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 5_000_000,
      model: "claude-sonnet-5-5",
      onEvent: (event) => early.push(event),
    });
    const late: CompactionEvent[] = [];
    session.on((event) => late.push(event));
    const warning = {
      type: "context_window_warning",
      problem: expect.objectContaining({ kind: "above_model_window", configuredLimit: 5_000_000 }),
    };
    expect(early).toEqual([warning]);
    expect(late).toEqual([warning]);
    session.addUserText("hello");
    expect(late).toHaveLength(1);
    // A session whose window is right tells a listener nothing.
    const right = new AgentSession({ contextLimit: 100_000, model: "claude-sonnet-5-5" });
    const none: CompactionEvent[] = [];
    right.on((event) => none.push(event));
    expect(none).toEqual([]);
  });
});
