import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAnthropicResponse, toAnthropicMessages } from "../../src/anthropic/index.js";
import {
  AgentSession,
  type AgentSessionOptions,
  type CompactionEvent,
  HybridCompactor,
  LLMCompactor,
  ThresholdCompactor,
  validateConversation,
} from "../../src/index.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { answerReply, SYSTEM, TOOLS, toolLoopScript } from "../support/coding-agent.js";
import {
  MessagesApiServer,
  roughTokens,
  type MessagesApiServer as Server,
} from "../support/messages-api-server.js";

/**
 * The README's agent loop, exactly as written (maybeCompact, messages.create with
 * toAnthropicMessages(session.messages), appendAnthropicResponse, addToolResults), through the
 * real SDK against the loopback Messages API, which signs a thinking block at the start of
 * every reply and enforces the preserved-thinking prefix check, the tool-loop thinking rule
 * and the context window. Invariant 6: no request built after a compaction is refused.
 */

const WINDOW = 24_000;

/** The model: a run of tool calls per request, ending the turn now and then (a long loop otherwise). */
const agentScript = () =>
  toolLoopScript({
    endsTurn: (messages) =>
      messages.filter((message) => message.role === "assistant").length % 9 === 8,
    path: (n) => `src/f${n}.ts`,
  });

interface LoopOutcome {
  requests: number;
  rejected: string[];
  largest: number;
  thinkingDropped: number;
  events: CompactionEvent[];
}

async function readmeLoop(
  server: Server,
  options: AgentSessionOptions,
  steps: number,
): Promise<LoopOutcome> {
  const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
  const events: CompactionEvent[] = [];
  const session = new AgentSession({ ...options, onEvent: (event) => events.push(event) });
  const outcome: LoopOutcome = {
    requests: 0,
    rejected: [],
    largest: 0,
    thinkingDropped: 0,
    events,
  };
  session.addUserText("Read the source tree and fix the failing test. Never edit generated files.");
  for (let step = 1; step <= steps; step += 1) {
    await session.maybeCompact();
    const messages = toAnthropicMessages(session.messages);
    outcome.largest = Math.max(
      outcome.largest,
      roughTokens({ system: SYSTEM, tools: TOOLS, messages }),
    );
    let response: Anthropic.Message;
    try {
      response = await client.messages.create({
        model: "claude-fable-5-1",
        max_tokens: 1024,
        system: SYSTEM,
        tools: TOOLS,
        thinking: { type: "adaptive" },
        messages,
      } as Anthropic.MessageCreateParamsNonStreaming);
    } catch (error) {
      outcome.rejected.push(error instanceof Error ? error.message : String(error));
      break;
    }
    outcome.requests += 1;
    appendAnthropicResponse(session, response);
    answerReply(session, response, step);
  }
  expect(validateConversation(session.messages)).toEqual([]);
  for (const event of events) {
    if (event.type === "compaction_end") {
      outcome.thinkingDropped += event.boundary.thinkingBlocksDropped;
    } else if (event.type === "context_trimmed") {
      outcome.thinkingDropped += event.thinkingBlocksDropped;
    }
  }
  return outcome;
}

let server: Server;
beforeAll(async () => {
  server = await MessagesApiServer.start({
    onMessages: agentScript(),
    thinkByDefault: true,
    preservedThinking: "enforced",
    contextWindow: WINDOW,
  });
});
afterAll(() => server.close());

describe("invariant 6: the README loop with thinking in every reply, 150 requests, no rejection", () => {
  const strategies: [string, () => AgentSessionOptions][] = [
    ["the default session", () => ({ contextLimit: WINDOW })],
    [
      "threshold with redact",
      () => ({
        contextLimit: WINDOW,
        compactor: new ThresholdCompactor({ toolCompaction: "redact" }),
      }),
    ],
    [
      "hybrid",
      () => ({
        contextLimit: WINDOW,
        compactor: new HybridCompactor({ client: new MockLlmClient() }),
      }),
    ],
    [
      "LLM",
      () => ({
        contextLimit: WINDOW,
        compactor: new ThresholdCompactor({ toolCompaction: "redact" }),
        llmCompactor: new LLMCompactor(new MockLlmClient(), {
          keepRecentTurns: 1,
          targetUtilization: 0.5,
        }),
      }),
    ],
  ];

  it.each(strategies)("%s", async (_name, options) => {
    const outcome = await readmeLoop(server, options(), 150);
    expect(outcome.rejected).toEqual([]);
    expect(outcome.requests).toBe(150);
    expect(outcome.largest).toBeLessThanOrEqual(WINDOW);
    // Compaction happened, and it removed stale thinking rather than send it.
    expect(
      outcome.events.some(
        (event) => event.type === "compaction_end" || event.type === "context_trimmed",
      ),
    ).toBe(true);
    expect(outcome.thinkingDropped).toBeGreaterThan(0);
  });

  it("keepStaleThinking without drop_block is refused at the first compaction: the check is real", async () => {
    const outcome = await readmeLoop(
      server,
      { contextLimit: WINDOW, keepStaleThinking: true },
      150,
    );
    expect(outcome.rejected[0]).toMatch(/bound to a different conversation/);
  });
});
