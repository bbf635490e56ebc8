import { describe, expect, it, vi } from "vitest";
import { history } from "../../test/support/session-history.js";
import { createCompactor } from "../compactors/create-compactor.js";
import { HybridCompactor } from "../compactors/hybrid-compactor.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { ValidationError } from "../core/errors.js";
import { estimateTokens } from "../core/message-memo.js";
import { isSummaryTurn } from "../core/turn.js";
import { validateConversation } from "../core/validate-conversation.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";
import type { CompactionEvent } from "./events.js";
import type { BeforeCompactContext, CompactionBoundary } from "./hooks.js";

const SYSTEM_PROMPT_TOKENS = 2000;

/**
 * Runs one agent request answered with `calls` tool calls, each result ~2,000 tokens. Before
 * every model request: maybeCompact, then the request is "sent" (the system prompt plus the
 * messages), and the model's usage recorded. Returns each request's size.
 */
async function runLongTurn(session: AgentSession, calls: number): Promise<number[]> {
  session.addUserText("Fix every lint error in the repo; never edit generated files.");
  const requests: number[] = [];
  for (let call = 1; call <= calls; call += 1) {
    await session.maybeCompact();
    const size = SYSTEM_PROMPT_TOKENS + estimateTokens(session.messages);
    requests.push(size);
    session.recordUsage({ inputTokens: size, outputTokens: 40 });
    session.addAssistant([
      {
        type: "tool_use",
        id: `call-${call}`,
        name: "read_file",
        input: { path: `/src/${call}.ts` },
      },
    ]);
    session.addToolResults([
      {
        type: "tool_result",
        toolUseId: `call-${call}`,
        content: `line ${call}\n`.repeat(700),
        isError: false,
      },
    ]);
  }
  await session.maybeCompact();
  requests.push(SYSTEM_PROMPT_TOKENS + estimateTokens(session.messages));
  return requests;
}

describe("a 1,000-tool-call single-turn trajectory", () => {
  it("stays under its window with keepRecentToolUses, every request, without any summary", async () => {
    const contextLimit = 100_000;
    const boundaries: CompactionBoundary[] = [];
    const session = new AgentSession({
      contextLimit,
      compactor: new ThresholdCompactor({
        toolCompaction: "redact",
        keepRecentToolUses: 10,
      }),
      afterCompact: (boundary) => {
        boundaries.push(boundary);
      },
    });
    const requests = await runLongTurn(session, 1000);
    // Uncompacted, the turn would be about 2,000,000 tokens.
    expect(Math.max(...requests)).toBeLessThanOrEqual(contextLimit);
    expect(session.contextUsed).toBeLessThanOrEqual(contextLimit);
    expect(validateConversation(session.messages)).toEqual([]);
    // Compactions happened, batched: far fewer than one per tool call (masking alone leaves each
    // call and its placeholder, about 60 tokens with their framing: near the end of the turn the
    // threshold comes every few calls).
    expect(boundaries.length).toBeGreaterThan(10);
    expect(boundaries.length).toBeLessThan(250);
    expect(boundaries.every((boundary) => boundary.strategy === "threshold")).toBe(true);
    // The newest 10 results are intact.
    const contents = session.messages.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    expect(contents.slice(-10).every((content) => String(content).startsWith("line"))).toBe(true);
  });

  it("without keepRecentToolUses (the seed's turn-only retention) it overflows", async () => {
    const session = new AgentSession({
      contextLimit: 100_000,
      compactor: new ThresholdCompactor({ toolCompaction: "redact" }),
      trimOnOverflow: false,
    });
    const requests = await runLongTurn(session, 100);
    expect(Math.max(...requests)).toBeGreaterThan(100_000);
  });

  it("stays under its window with the hybrid as the single compactor, summarising rarely", async () => {
    const contextLimit = 60_000;
    const client = new MockLlmClient();
    const session = new AgentSession({
      contextLimit,
      compactor: new HybridCompactor({
        client,
        keepRecentToolUses: 5,
        clearToolInputs: true,
      }),
    });
    const requests = await runLongTurn(session, 1000);
    expect(Math.max(...requests)).toBeLessThanOrEqual(contextLimit);
    expect(validateConversation(session.messages)).toEqual([]);
    expect(client.callCount).toBeGreaterThan(0);
    expect(client.callCount).toBeLessThan(50);
    // The user's request is still there, verbatim.
    expect(JSON.stringify(session.messages)).toContain("never edit generated files");
  });
});

describe("clearAtLeast in a session", () => {
  it("prevents a rewrite that frees too little: the history stays the same array, nothing is reported", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 3000,
      compactor: new ThresholdCompactor({ toolCompaction: "redact", clearAtLeast: 5000 }),
      trimOnOverflow: false,
      onEvent: (event) => events.push(event),
    });
    session.append(...history(5));
    expect(session.contextUsed / 3000).toBeGreaterThan(0.75);
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(false);
    expect(report.boundaries).toEqual([]);
    expect(session.messages).toBe(before);
    // A compaction that changed nothing is a skip with its reason, never an end.
    // The context stays above this small window: the session says so.
    expect(events.map((event) => event.type)).toEqual(["compaction_skipped", "context_overflow"]);
    expect(events[0]).toMatchObject({
      reason: "nothing_to_compact",
      detail: expect.stringContaining("clearAtLeast"),
    });
    // forceCompact is a request: the minimum gain does not apply.
    const forced = await session.forceCompact();
    expect(forced.toolResultsRedacted).toBe(2);
  });
});

describe("beforeCompact and afterCompact hooks, boundary records", () => {
  it("records a boundary per compaction: in the end event, the report, afterCompact and forceCompact's result", async () => {
    const events: CompactionEvent[] = [];
    const after: CompactionBoundary[] = [];
    const session = new AgentSession({
      contextLimit: 4200, // masking alone gets under the summarizer's threshold
      compactor: { type: "threshold", config: { toolCompaction: "redact" } },
      llmCompactor: new LLMCompactor(new MockLlmClient()),
      onEvent: (event) => events.push(event),
      afterCompact: async (boundary) => {
        await Promise.resolve();
        after.push(boundary);
      },
    });
    session.append(...history(6));
    const report = await session.maybeCompact();
    expect(report.boundaries).toEqual([
      {
        trigger: "auto",
        strategy: "threshold",
        tokensBefore: expect.any(Number),
        tokensAfter: expect.any(Number),
        turnsCompacted: 0,
        toolResultsCompacted: 3,
        toolInputsCleared: 0,
        messagesRemoved: 0,
        thinkingBlocksDropped: 0,
        thinkingTokensDropped: 0,
        toolExchangeClosed: false,
        cacheReadTokens: expect.any(Number),
        cacheWriteTokens: expect.any(Number),
      },
    ]);
    expect(report.boundaries[0]!.tokensAfter).toBeLessThan(report.boundaries[0]!.tokensBefore);
    expect(after).toEqual(report.boundaries);
    const end = events.find((event) => event.type === "compaction_end");
    expect(end).toMatchObject({ boundary: report.boundaries[0] });

    const forced = await session.forceCompact();
    expect(forced.boundaries.map((boundary) => [boundary.trigger, boundary.strategy])).toEqual([
      ["manual", "llm"],
    ]);
    // A manual summary folds every turn (the latest request kept verbatim).
    expect(forced.boundaries[0]).toMatchObject({ turnsCompacted: 6, toolResultsCompacted: 0 });
    expect(after).toHaveLength(2);
  });

  it("hands every observer one frozen boundary: a hook rewrites nothing the others read (review 55c #10)", async () => {
    const events: CompactionEvent[] = [];
    const refused: unknown[] = [];
    const session = new AgentSession({
      contextLimit: 4200,
      compactor: { type: "threshold", config: { toolCompaction: "redact" } },
      llmCompactor: new LLMCompactor(new MockLlmClient()),
      onEvent: (event) => events.push(event),
      afterCompact: (boundary) => {
        try {
          (boundary as { strategy: string }).strategy = "EVIL";
        } catch (error) {
          refused.push(error);
        }
      },
    });
    session.append(...history(6));
    const report = await session.maybeCompact();
    expect(refused).toEqual([expect.any(TypeError)]);
    expect(report.boundaries[0]!.strategy).toBe("threshold");
    const end = events.find((event) => event.type === "compaction_end");
    expect(end?.type === "compaction_end" && end.boundary.strategy).toBe("threshold");
    expect(() => (report.boundaries as CompactionBoundary[]).push(report.boundaries[0]!)).toThrow(
      TypeError,
    );
    const forced = await session.forceCompact();
    expect(Object.isFrozen(forced.boundaries) && Object.isFrozen(forced.boundaries[0])).toBe(true);
  });

  it("lets beforeCompact veto a compaction", async () => {
    const events: CompactionEvent[] = [];
    const seen: BeforeCompactContext[] = [];
    const session = new AgentSession({
      contextLimit: 3000,
      trimOnOverflow: false,
      onEvent: (event) => events.push(event),
      beforeCompact: (context) => {
        seen.push(context);
        return { veto: true };
      },
    });
    session.append(...history(5));
    const before = session.messages;
    const report = await session.maybeCompact();
    expect(report).toMatchObject({ compacted: false, boundaries: [] });
    expect(session.messages).toBe(before);
    expect(events).toEqual([
      {
        type: "compaction_skipped",
        trigger: "auto",
        strategy: "threshold",
        reason: "vetoed",
        detail: "the beforeCompact hook vetoed it",
      },
      expect.objectContaining({ type: "context_overflow", contextLimit: 3000 }),
    ]);
    expect(seen[0]).toMatchObject({
      trigger: "auto",
      strategy: "threshold",
      contextLimit: 3000,
    });
    expect(seen[0]?.messages).toBe(before);
    const forced = await session.forceCompact();
    expect(forced).toMatchObject({ toolResultsSummarized: 0, boundaries: [] });
  });

  it("passes beforeCompact's instructions to the summariser, after forceCompact's own", async () => {
    const client = new MockLlmClient();
    const session = new AgentSession({
      contextLimit: 2000,
      compactor: false,
      llmCompactor: new LLMCompactor(client),
      beforeCompact: async ({ trigger }) => ({
        instructions: `Keep every file path (${trigger}).`,
      }),
    });
    session.append(...history(5));
    await session.maybeCompact();
    expect(client.lastRequest?.prompt).toContain("Keep every file path (auto).");

    const manual = new AgentSession({
      contextLimit: 1_000_000,
      compactor: false,
      llmCompactor: new LLMCompactor(client),
      beforeCompact: () => ({ instructions: "From the hook." }),
    });
    manual.append(...history(5));
    await manual.forceCompact({ instructions: "From the caller." });
    const prompt = client.lastRequest!.prompt;
    expect(prompt).toContain("From the caller.");
    expect(prompt.indexOf("From the caller.")).toBeLessThan(prompt.indexOf("From the hook."));
  });

  it("logs a hook that throws and goes on", async () => {
    const warn = vi.fn();
    const session = new AgentSession({
      contextLimit: 3000,
      logger: { warn },
      beforeCompact: () => {
        throw new Error("hook bug");
      },
      afterCompact: () => {
        throw new Error("after bug");
      },
    });
    session.append(...history(5));
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      "agent-compaction: the beforeCompact hook threw",
      "agent-compaction: the afterCompact hook threw",
    ]);
  });

  it("runs a hybrid compactor made by createCompactor", async () => {
    const client = new MockLlmClient();
    // More turns than the hybrid's 10 newest tool uses, which its summary keeps whole too.
    const session = new AgentSession({
      contextLimit: 12_000,
      compactor: createCompactor({ type: "hybrid", config: { targetUtilization: 0.3 } }, client),
    });
    session.append(...history(20));
    const report = await session.maybeCompact();
    expect(report.boundaries[0]?.strategy).toBe("hybrid");
    expect(isSummaryTurn(session.messages[0]!.turnId)).toBe(true);
    expect(session.contextUsed / 12_000).toBeLessThanOrEqual(0.3);
  });

  it.each([
    [{ beforeCompact: 42 }, "beforeCompact"],
    [{ afterCompact: "no" }, "afterCompact"],
    [{ compactor: { type: "mixed" } }, "compactor"],
  ])("refuses %j naming %s", (options, field) => {
    const attempt = () => new AgentSession({ contextLimit: 1000, ...(options as object) });
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(field);
  });
});
