import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, Tool } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AnthropicCompactor,
  AnthropicLlmClient,
  type AnthropicRequestDescription,
  anthropicRequest,
  appendAnthropicResponse,
} from "../../src/anthropic/index.js";
import {
  AgentSession,
  type CompactionUsage,
  LLMCompactor,
  type ToolUseBlock,
} from "../../src/index.js";
import {
  MessagesApiServer,
  type RecordedRequest,
  type Reply,
  roughTokens,
} from "../support/messages-api-server.js";

/**
 * The summary request that reads from the prompt cache, through the real SDK against the
 * loopback API: the agent's loop and the summarizer share one request description, and the
 * server plays a prompt cache that reads the longest byte-identical prefix of the previous
 * request (model, system, tools and thinking first, then message by message) and writes the rest.
 */

const API_KEY = "sk-ant-api03-cache-SECRET-0123456789";
const TOOLS: Tool[] = [
  {
    name: "read_file",
    description: "Reads a file",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];
const AGENT: AnthropicRequestDescription = {
  model: "claude-sonnet-5-5",
  system: "You read files. Never edit vendor/.",
  tools: TOOLS,
};
const MARKER = "[Summary request from the context manager";

type Body = MessageCreateParamsNonStreaming;

/** The prompt cache the server plays: per request, the tokens read and written. */
class PromptCache {
  #previous: string[] = [];
  readonly usage = new Map<RecordedRequest, { read: number; written: number }>();

  reply(request: RecordedRequest, reply: Reply): Reply {
    const body = request.body as Body;
    // The cache matches block by block: a request that adds a block to the last message still
    // reads everything before it.
    const parts = [
      JSON.stringify([body.model, body.system, body.tools, body.thinking]),
      ...body.messages.flatMap((message, position) =>
        (typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content
        ).map((block) => JSON.stringify([position, message.role, block])),
      ),
    ];
    let shared = 0;
    while (
      shared < Math.min(parts.length, this.#previous.length) &&
      parts[shared] === this.#previous[shared]
    ) {
      shared += 1;
    }
    const tokens = (from: number, to: number) =>
      parts.slice(from, to).reduce((sum, part) => sum + roughTokens(part), 0);
    const read = tokens(0, shared);
    const written = tokens(shared, parts.length);
    this.#previous = parts;
    this.usage.set(request, { read, written });
    if (reply.type !== "message") return reply;
    return {
      ...reply,
      usage: {
        input_tokens: 0,
        cache_read_input_tokens: read,
        cache_creation_input_tokens: written,
      },
    };
  }
}

function lastText(body: Body): string {
  const last = body.messages.at(-1);
  if (last === undefined) return "";
  if (typeof last.content === "string") return last.content;
  const block = last.content.at(-1) as { type?: string; text?: string } | undefined;
  return block?.type === "text" ? (block.text ?? "") : "";
}

const isSummaryRequest = (request: RecordedRequest) =>
  lastText(request.body as Body).startsWith(MARKER);

let server: MessagesApiServer;
let cache: PromptCache;

beforeEach(async () => {
  cache = new PromptCache();
  let calls = 0;
  server = await MessagesApiServer.start({
    onMessages: (request) => {
      // A summary request: the agent's own with the instruction, or a transcript (no tools).
      if (isSummaryRequest(request) || (request.body as Body).tools === undefined) {
        return cache.reply(request, {
          type: "message",
          text: "Read file-1.ts to file-3.ts; rule: never edit vendor/.",
        });
      }
      calls += 1;
      const reply: Reply = {
        type: "message",
        content: [
          { type: "text", text: `Reading file-${calls}.ts.`, citations: null },
          {
            type: "tool_use",
            id: `toolu_${calls}`,
            name: "read_file",
            input: { path: `file-${calls}.ts` },
          },
        ],
      };
      return cache.reply(request, reply);
    },
  });
});

afterEach(async () => {
  await server.close();
});

function sdk(): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
}

/** The README's loop with the shared description: one tool call per step, each result 4,000 characters. */
async function runLoop(session: AgentSession, client: Anthropic, steps: number): Promise<void> {
  session.addUserText("Read the files one by one. Never edit vendor/.");
  for (let step = 0; step < steps; step += 1) {
    await session.maybeCompact();
    const response = await client.messages.create(
      anthropicRequest(AGENT, session.messages, { maxTokens: 1024 }),
    );
    appendAnthropicResponse(session, response);
    const calls = response.content.filter((block) => block.type === "tool_use");
    session.addToolResults(
      calls.map((call) => ({
        type: "tool_result",
        toolUseId: (call as unknown as ToolUseBlock).id,
        content: `contents of ${String((call.input as { path?: unknown }).path)}: ${"x".repeat(4000)}`,
        isError: false,
      })),
    );
  }
}

describe("a summary request that reads from the prompt cache", () => {
  it("sends the agent's last request byte for byte, then the instruction, and reads it from the cache", async () => {
    const client = sdk();
    const summarizer = new AnthropicLlmClient({ client, request: AGENT });
    expect(summarizer.acceptsConversation).toBe(true);
    const session = new AgentSession({
      contextLimit: 30_000,
      compactor: false,
      llmCompactor: new LLMCompactor(summarizer, {
        keepRecentTurns: 1,
        targetUtilization: 0.4,
        maxSummaryTokens: 1024,
      }),
    });
    await runLoop(session, client, 26);

    const requests = server.requestsTo("messages");
    const index = requests.findIndex(isSummaryRequest);
    expect(index).toBeGreaterThan(0);
    const summary = requests[index]!.body as Body;
    const agentLast = requests[index - 1]!.body as Body;
    expect(isSummaryRequest(requests[index - 1]!)).toBe(false);
    // Same prefix description: model, system, tools, thinking, cache_control.
    for (const field of ["model", "system", "tools", "thinking", "cache_control"] as const) {
      expect(JSON.stringify(summary[field])).toBe(JSON.stringify(agentLast[field]));
    }
    expect(summary.cache_control).toEqual({ type: "ephemeral" });
    // Every message of the agent's last request, byte for byte; the instruction is one more
    // block at the end of its last (user) message, after all of that message's blocks.
    expect(summary.messages).toHaveLength(agentLast.messages.length);
    agentLast.messages.slice(0, -1).forEach((message, position) => {
      expect(JSON.stringify(summary.messages[position])).toBe(JSON.stringify(message));
    });
    const sentLast = agentLast.messages.at(-1)!.content as unknown[];
    const summaryLast = summary.messages.at(-1)!.content as unknown[];
    expect(JSON.stringify(summaryLast.slice(0, -1))).toBe(JSON.stringify(sentLast));
    expect(summaryLast).toHaveLength(sentLast.length + 1);
    // Warm cache: at least 90% of the summary request's input is read from it.
    const { read, written } = cache.usage.get(requests[index]!)!;
    expect(read / (read + written)).toBeGreaterThanOrEqual(0.9);
    // Its usage is counted.
    const counted: CompactionUsage = session.compactionUsage;
    expect(counted.cacheReadInputTokens).toBeGreaterThanOrEqual(read);
    expect(counted.cacheCreationInputTokens ?? 0).toBeGreaterThan(0);
    expect(session.messages[0]!.content[0]).toMatchObject({ type: "text" });
    // The agent's requests after the summary are valid (the server checks them) and go on.
    expect(requests.slice(index + 1).every((request) => !isSummaryRequest(request))).toBe(true);
  });

  it("counts a transcript summary's usage too (a client without the description)", async () => {
    const client = sdk();
    const session = new AgentSession({
      contextLimit: 10_000,
      compactor: false,
      llmCompactor: new LLMCompactor(
        new AnthropicLlmClient({ client, model: "claude-haiku-5-5" }),
        { keepRecentTurns: 1, targetUtilization: 0.4, maxSummaryTokens: 1024 },
      ),
    });
    await runLoop(session, client, 10);
    const transcripts = server
      .requestsTo("messages")
      .filter((request) => (request.body as Body).tools === undefined);
    expect(transcripts.length).toBeGreaterThan(0);
    expect(
      session.compactionUsage.inputTokens + (session.compactionUsage.cacheCreationInputTokens ?? 0),
    ).toBeGreaterThan(0);
  });

  it("throws a ValidationError naming the field for a usage out of range (LLMCompactor reports it as llm_error)", async () => {
    const client = sdk();
    const summarizer = new AnthropicLlmClient({ client, request: AGENT });
    server.queue("messages", {
      type: "message",
      text: "summary",
      usage: { input_tokens: 5, output_tokens: -1 },
    });
    await expect(summarizer.complete({ prompt: "p" })).rejects.toThrow(/output_tokens/);
  });
});

describe("AnthropicCompactor with the shared description", () => {
  it("sends the description's model, system, tools and thinking, and refuses them given twice", async () => {
    const client = sdk();
    const described: AnthropicRequestDescription = { ...AGENT, thinking: { type: "adaptive" } };
    const compactor = new AnthropicCompactor({ client, request: described });
    expect(compactor.config.model).toBe("claude-sonnet-5-5");
    const session = new AgentSession({
      contextLimit: 100_000,
      compactor: false,
      llmCompactor: compactor,
    });
    session.addUserText("Read file-1.ts");
    session.addAssistant([{ type: "text", text: "Done reading." }]);
    session.addUserText("Now file-2.ts");
    session.addAssistant([{ type: "text", text: "Done again." }]);
    session.addUserText("And file-3.ts");
    await session.forceCompact();
    const [request] = server.requestsTo("messages");
    const body = request!.body as Body & { compaction?: unknown };
    expect(body.compaction).toBeDefined();
    expect(body.system).toBe(AGENT.system);
    expect(body.tools).toEqual(TOOLS);
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(() => new AnthropicCompactor({ client, request: AGENT, tools: TOOLS })).toThrow(
      /tools: must not be given with request/,
    );
    expect(() => new AnthropicCompactor({ client } as never)).toThrow(/model: is required/);
  });
});

describe("AnthropicCompactor usage", () => {
  it("fails with llm_error when usage.iterations holds a count that is not a whole number ≥ 0", async () => {
    const compactor = new AnthropicCompactor({ client: sdk(), request: AGENT });
    const conversation = new AgentSession({ contextLimit: 100_000, compactor: false });
    conversation.addUserText("Read file-1.ts");
    conversation.addAssistant([{ type: "text", text: "Done reading." }]);
    conversation.addUserText("Now file-2.ts");
    for (const bad of [-5, 1.5]) {
      server.queue("compaction", { type: "compaction", iteration: { input_tokens: bad } });
      const error = await compactor
        .compactAsync(conversation.messages, new Map(), { trigger: "manual" })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "llm_error" });
      expect(String((error as Error).message)).toMatch(/inputTokens: must be a whole number/);
    }
    server.queue("compaction", {
      type: "compaction",
      iteration: { input_tokens: 900, output_tokens: 40 },
    });
    const { result } = await compactor.compactAsync(conversation.messages, new Map(), {
      trigger: "manual",
    });
    expect(result.usage).toMatchObject({ inputTokens: 900, outputTokens: 40 });
  });
});
