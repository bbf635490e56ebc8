import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { offlineClaude } from "../../examples/support/offline-claude.js";
import {
  AnthropicLlmClient,
  AnthropicTokenCounter,
  appendAnthropicResponse,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import {
  AgentSession,
  DEFAULT_SUMMARY_PROMPT,
  LLMCompactor,
  SUMMARY_PREFIX,
  type ToolUseBlock,
} from "../../src/index.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import { MessagesApiServer, type RecordedRequest } from "../support/messages-api-server.js";

/**
 * A tool-using agent loop on the real SDK against the loopback API (the offline stand-in
 * plays Claude and rejects any request the real API would reject), asserting on the JSON
 * the SDK actually sent.
 */

const API_KEY = "sk-ant-api03-e2e-SECRET-0123456789abcdef";
const SYSTEM = "You read files.";
const TOOLS: Tool[] = [
  {
    name: "read_file",
    description: "Reads a file",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];
const FILE = "x".repeat(3200);

let server: MessagesApiServer;

beforeEach(async () => {
  server = await MessagesApiServer.start({ onMessages: offlineClaude({ cacheShare: 0.9 }) });
});

afterEach(async () => {
  await server.close();
});

interface Step {
  contextUsedBefore: number;
  /** The measure when the request was built, after maybeCompact. */
  contextUsedSent: number;
  contextUsedAfter: number;
  reported: number;
  /** The uncached input tokens alone (what the seed measured). */
  uncached: number;
}

async function runTasks(
  session: AgentSession,
  client: Anthropic,
  tasks: string[],
): Promise<Step[]> {
  const steps: Step[] = [];
  for (const task of tasks) {
    session.addUserText(task);
    for (let step = 0; step < 6; step += 1) {
      const contextUsedBefore = session.contextUsed;
      await session.maybeCompact();
      const contextUsedSent = session.contextUsed;
      const response = await client.messages.create({
        model: "claude-agent",
        max_tokens: 1024,
        system: SYSTEM,
        tools: TOOLS,
        messages: toAnthropicMessages(session.messages),
      });
      const { message } = appendAnthropicResponse(session, response);
      const usage = response.usage;
      steps.push({
        contextUsedBefore,
        contextUsedSent,
        contextUsedAfter: session.contextUsed,
        reported:
          usage.input_tokens +
          (usage.cache_creation_input_tokens ?? 0) +
          (usage.cache_read_input_tokens ?? 0) +
          usage.output_tokens,
        uncached: usage.input_tokens,
      });
      const calls = (message?.content ?? []).filter(
        (block): block is ToolUseBlock => block.type === "tool_use",
      );
      if (calls.length === 0) break;
      session.addToolResults(
        calls.map((call) => ({
          type: "tool_result",
          toolUseId: call.id,
          content: `${String(call.input["path"])}:\n${FILE}`,
          isError: false,
          compactSummary: `[read ${String(call.input["path"])}]`,
        })),
      );
    }
  }
  return steps;
}

const agentRequests = () =>
  server.requestsTo("messages").filter((request) => (request.body as { tools?: unknown }).tools);
const summaryRequests = () =>
  server.requestsTo("messages").filter((request) => !(request.body as { tools?: unknown }).tools);
const messagesOf = (request: RecordedRequest) =>
  (request.body as { messages: MessageParam[] }).messages;

describe("an agent loop on the real SDK", () => {
  it("compacts before the request that would overflow, and sends the summary merged with the kept request", async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
    const session = new AgentSession({
      contextLimit: 6000,
      compactor: false,
      llmCompactor: new LLMCompactor(
        new AnthropicLlmClient({ client, model: "claude-summarizer" }),
        {
          threshold: 0.6,
          keepRecentTurns: 1,
          maxSummaryTokens: 300,
        },
      ),
    });
    const steps = await runTasks(session, client, [
      "Read src/a.ts and src/b.ts. Never touch vendor/.",
      "Read src/c.ts.",
      "Read src/d.ts and src/e.ts.",
      "Which files did you read, and what is my rule?",
    ]);

    // The API would have accepted every request (the stand-in answers 400 otherwise).
    for (const request of agentRequests()) expect(requestProblems(messagesOf(request))).toEqual([]);

    // The session's measure is the usage the API reported: input + cache + output.
    for (const step of steps) expect(step.contextUsedAfter).toBe(step.reported);

    // Summaries were asked of the summariser model, with its system prompt and token cap.
    const summaries = summaryRequests();
    expect(summaries.length).toBeGreaterThan(0);
    for (const request of summaries) {
      expect(request.body).toMatchObject({
        model: "claude-summarizer",
        max_tokens: 300,
        system: DEFAULT_SUMMARY_PROMPT,
        messages: [{ role: "user", content: expect.stringContaining("read_file") }],
      });
    }

    // Each summary came before the agent request it made room for, and that request opens
    // with the summary merged with the request kept verbatim.
    const all = server.requestsTo("messages");
    for (const summary of summaries) {
      const next = all
        .slice(all.indexOf(summary) + 1)
        .find((request) => agentRequests().includes(request));
      if (next === undefined) continue;
      const [first] = messagesOf(next);
      expect(first?.role).toBe("user");
      const content = first?.content as { type: string; text?: string }[];
      expect(content[0]?.text?.startsWith(SUMMARY_PREFIX)).toBe(true);
      expect(content[0]?.text).toContain("Files already read:");
      expect(content.at(-1)?.text).toMatch(/^(Read src|Which files)/);
    }

    // The context went over the threshold counting the cache, which input_tokens alone never did.
    const uncached = Math.max(...steps.map((step) => step.uncached));
    expect(uncached).toBeLessThan(0.6 * 6000);
    expect(Math.max(...steps.map((step) => step.contextUsedBefore))).toBeGreaterThan(0.6 * 6000);
    // And no request went out above the threshold: compaction ran first.
    for (const step of steps) expect(step.contextUsedSent).toBeLessThanOrEqual(0.6 * 6000);

    // The rule stated at the start survived into the last answer.
    const last = session.messages.at(-1)?.content[0];
    expect(last).toMatchObject({
      type: "text",
      text: expect.stringMatching(/never touch vendor\//i),
    });
  });

  it("keeps compacted tool results valid: masked results still answer their tool uses", async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
    const session = new AgentSession({
      contextLimit: 5000,
      compactor: { type: "threshold", config: { threshold: 0.5, keepRecentTurns: 1 } },
    });
    await runTasks(session, client, [
      "Read src/a.ts and src/b.ts.",
      "Read src/c.ts.",
      "Read src/d.ts.",
    ]);
    for (const request of agentRequests()) expect(requestProblems(messagesOf(request))).toEqual([]);
    const lastRequest = messagesOf(agentRequests().at(-1)!);
    const results = lastRequest.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.filter((block) => block.type === "tool_result")
        : [],
    ) as { content?: unknown }[];
    // The compact summary stands in, naming the recall handle of the original.
    expect(
      results.some((block) => String(block.content).startsWith("[read src/a.ts] [recall r")),
    ).toBe(true);
    expect(JSON.stringify(lastRequest)).not.toContain("compactSummary");
  });

  it("counts tokens of the same request it sends", async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
    const session = new AgentSession({ contextLimit: 100_000, compactor: false });
    await runTasks(session, client, ["Read src/a.ts."]);
    const counter = new AnthropicTokenCounter({
      client,
      model: "claude-agent",
      system: SYSTEM,
      tools: TOOLS,
    });
    const tokens = await counter.countTokens(session.messages);
    const [count] = server.requestsTo("count_tokens");
    expect(count?.body).toEqual({
      model: "claude-agent",
      system: SYSTEM,
      tools: TOOLS,
      messages: toAnthropicMessages(session.messages),
    });
    expect(tokens).toBeGreaterThan(800);
  });
});
