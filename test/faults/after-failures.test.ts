import { describe, expect, it } from "vitest";
import { answerCompactCall } from "../../src/core/compact-tool-call.js";
import {
  AgentSession,
  type AsyncCompactor,
  HybridCompactor,
  LLMCompactor,
  type MaybeCompactReport,
} from "../../src/index.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { manualTimers } from "../support/manual-timers.js";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A summarizer that is down: every request fails. */
const down = () => new MockLlmClient({ defaultReply: new Error("503 service unavailable") });

interface Step {
  /** The context measure the request goes out with. */
  sent: number;
  report: MaybeCompactReport;
}

/**
 * The README's loop for `requests` requests of one long task: maybeCompact, the request (its
 * size recorded), then the model's tool call and its result; at request `compactAt` the model
 * calls the compact tool, answered with `answerCompactCall`.
 */
async function agentLoop(
  session: AgentSession,
  requests: number,
  options: {
    resultChars: number;
    compactAt?: number;
    maybeCompact?: () => Promise<MaybeCompactReport>;
  },
): Promise<Step[]> {
  const steps: Step[] = [];
  session.addUserText("Refactor the configuration loader.");
  for (let request = 1; request <= requests; request += 1) {
    const report = await (options.maybeCompact?.() ?? session.maybeCompact());
    steps.push({ sent: session.contextUsed, report });
    const id = `toolu_${request}`;
    const compact = request === options.compactAt;
    const name = compact ? "compact_context" : "read_file";
    session.addAssistant([{ type: "tool_use", id, name, input: { path: `src/f${request}.ts` } }]);
    session.addToolResults([
      compact
        ? answerCompactCall(session, id, { notes: "keep the loader's file names" })
        : {
            type: "tool_result",
            tool_use_id: id,
            content: `${request} `.repeat(options.resultChars / 3),
          },
    ]);
  }
  return steps;
}

describe("a summarizer outage and the model's compact tool", () => {
  it("does not wedge the session: the request goes through the breaker, masking and the last resort go on", async () => {
    const client = down();
    const session = new AgentSession({
      contextLimit: 30_000,
      llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
    });
    const steps = await agentLoop(session, 24, { resultChars: 6_000, compactAt: 3 });
    // Every request fits the window.
    for (const step of steps) {
      expect(step.sent).toBeLessThanOrEqual(30_000);
      expect(step.report.overWindow).toBe(false);
    }
    // The failing summary is tried until the breaker opens (3 in a row), then no more.
    expect(client.requests.length).toBe(3);
    expect(session.compactionRequested).toBe(true);
    const skipped = steps.at(-1)?.report;
    expect(skipped?.error).toBeUndefined();
    // The automatic path went on without the summarizer.
    expect(steps.some((step) => step.report.compacted)).toBe(true);
  });

  it("with a hanging summarizer, waits out the summary timeout only until the breaker opens", async () => {
    const client = new MockLlmClient({ defaultReply: { hang: true } });
    const { timers, fireAll } = manualTimers();
    const session = new AgentSession({
      contextLimit: 30_000,
      llmCompactor: new LLMCompactor(client, {
        keepRecentTurns: 1,
        summaryTimeoutMs: 60_000,
        timers,
      }),
    });
    let timeouts = 0;
    // Each call: fire the summary's timer (when one runs) until the call settles.
    const maybeCompact = async () => {
      const call = session.maybeCompact();
      let settled = false;
      void call.finally(() => {
        settled = true;
      });
      while (!settled) {
        await flush();
        if (!settled) timeouts += fireAll();
      }
      return call;
    };
    const steps = await agentLoop(session, 12, { resultChars: 6_000, compactAt: 2, maybeCompact });
    expect(timeouts).toBe(3);
    expect(steps.filter((step) => step.report.error?.code === "timeout")).toHaveLength(3);
    for (const step of steps) expect(step.sent).toBeLessThanOrEqual(30_000);
  });

  it("answers the request once the summarizer is back", async () => {
    const client = new MockLlmClient()
      .fail(new Error("503"))
      .reply("The loader was refactored; keep src/f1.ts in mind.");
    const session = new AgentSession({
      contextLimit: 200_000,
      llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
    });
    const steps = await agentLoop(session, 5, { resultChars: 600, compactAt: 2 });
    expect(steps[2]?.report.error?.code).toBe("llm_error");
    expect(steps[3]?.report.compacted).toBe(true);
    expect(session.compactionRequested).toBe(false);
    expect(client.lastRequest?.prompt).toContain("keep the loader's file names");
  });
});

/** A conversation of text turns only (nothing to mask): `turns` requests of `chars` each way. */
async function chatLoop(session: AgentSession, turns: number, chars: number): Promise<Step[]> {
  const steps: Step[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    session.addUserText(`Question ${turn}: ${"why ".repeat(chars / 4)}`);
    const report = await session.maybeCompact();
    steps.push({ sent: session.contextUsed, report });
    session.addAssistant([
      { type: "text", text: `Answer ${turn}: ${"because ".repeat(chars / 8)}` },
    ]);
  }
  return steps;
}

describe("a failed summary still leaves a request that fits", () => {
  const compactors: [string, (client: MockLlmClient) => AsyncCompactor][] = [
    ["LLMCompactor", (client) => new LLMCompactor(client, { keepRecentTurns: 1 })],
    ["HybridCompactor", (client) => new HybridCompactor({ client, keepRecentTurns: 1 })],
  ];
  for (const [name, make] of compactors) {
    it(`${name}: the last resort runs above its line when the summary fails`, async () => {
      const client = down();
      const session = new AgentSession({ contextLimit: 20_000, llmCompactor: make(client) });
      const steps = await chatLoop(session, 30, 4_000);
      for (const step of steps) expect(step.sent).toBeLessThanOrEqual(20_000);
      const failed = steps.filter((step) => step.report.error !== undefined);
      expect(failed.length).toBeGreaterThan(0);
      // A failed summary above the line: the oldest went, and the report says both.
      expect(steps.some((step) => step.report.error && step.report.trimmed)).toBe(true);
    });
  }
});
