import { describe, expect, it } from "vitest";
import { fourReads } from "../../test/support/four-reads.js";
import { compactionPrepareStep } from "../ai-sdk/prepare-step.js";
import { compactAnthropicMessages } from "../anthropic/compact-messages.js";
import { toAnthropicMessages } from "../anthropic/request.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { estimateTokens } from "../core/message-memo.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";

// The one-call helpers take the session's `compactor` option as the session does (review 59f,
// F6), and a signal aborted before the call starts rejects, as one aborted during it does (F5).
describe("a one-call helper's options, as the session's", () => {
  it("takes compactor: false with a summarizer, which then compacts alone", async () => {
    const llmCompactor = new LLMCompactor(new MockLlmClient().reply("The reads showed x."), {
      keepRecentTurns: 1,
    });
    const { compacted, result, error } = await compactAnthropicMessages(
      toAnthropicMessages(fourReads("s")),
      { contextLimit: 4_000, compactor: false, llmCompactor },
    );
    expect(error).toBeUndefined();
    expect(compacted).toBe(true);
    expect(result.turnsCompacted).toBeGreaterThan(0);
    expect(result.toolResultsRedacted).toBe(0);
  });

  it('takes { type: "threshold", config } and compacts as a session given the same', async () => {
    const compactor = { type: "threshold" as const, config: { threshold: 0.95 } };
    const conversation = fourReads("s");
    // Above the default's trigger, below this one's.
    const contextLimit = Math.ceil(estimateTokens(conversation) / 0.85);
    const session = new AgentSession({ contextLimit, compactor, sessionId: "s" });
    session.append(...conversation);
    const report = await session.maybeCompact();
    const helper = await compactAnthropicMessages(toAnthropicMessages(conversation), {
      contextLimit,
      compactor,
    });
    expect(report.compacted).toBe(false);
    expect(helper.compacted).toBe(false);
    const byDefault = await compactAnthropicMessages(toAnthropicMessages(conversation), {
      contextLimit,
    });
    expect(byDefault.compacted).toBe(true);
  });

  it("checks a type's config where it enters, naming what is wrong", async () => {
    const compactor = { type: "threshold" as const, config: { threshold: 2 } };
    await expect(
      compactAnthropicMessages(toAnthropicMessages(fourReads("s")), {
        contextLimit: 4_000,
        compactor,
      }),
    ).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/threshold/),
    });
    expect(() => compactionPrepareStep({ contextLimit: 4_000, compactor })).toThrow(/threshold/);
  });

  it("rejects with aborted when the signal fired before the call, the default compactor too", async () => {
    const input = toAnthropicMessages(fourReads("s"));
    // Due: the default compacts these messages in this window.
    expect((await compactAnthropicMessages(input, { contextLimit: 4_000 })).compacted).toBe(true);
    await expect(
      compactAnthropicMessages(input, { contextLimit: 4_000, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: "aborted" });
  });
});
