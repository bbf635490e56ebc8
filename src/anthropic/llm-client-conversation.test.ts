import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesApiServer } from "../../test/support/messages-api-server.js";
import { roughTokens } from "../testing/anthropic-rules/responses.js";
import { ConversationBuilder } from "../testing/builders.js";
import { AnthropicStandIn } from "../testing/index.js";
import { AnthropicLlmClient, type AnthropicMessagesClient } from "./llm-client.js";
import { anthropicRequest, toAnthropicMessages } from "./request.js";

let server: MessagesApiServer;

beforeEach(async () => {
  server = await MessagesApiServer.start();
});

afterEach(async () => {
  await server.close();
});

const sdk = () => new Anthropic({ baseURL: server.url, apiKey: "sk-test", maxRetries: 0 });
const AGENT = {
  model: "claude-opus-5-5",
  system: [{ type: "text", text: "You fix bugs." }],
  tools: [{ name: "bash", description: "Runs a command", input_schema: { type: "object" } }],
};

describe("AnthropicLlmClient usage", () => {
  it("returns the response's usage with the text, cache reads and writes included", async () => {
    server.queue("messages", {
      type: "message",
      text: "summary",
      usage: {
        input_tokens: 12,
        output_tokens: 34,
        cache_creation_input_tokens: 56,
        cache_read_input_tokens: 7890,
      },
    });
    const client = new AnthropicLlmClient({ client: sdk(), model: "m" });
    await expect(client.complete({ prompt: "p" })).resolves.toEqual({
      text: "summary",
      usage: {
        inputTokens: 12,
        outputTokens: 34,
        cacheCreationInputTokens: 56,
        cacheReadInputTokens: 7890,
      },
    });
    expect(client.acceptsConversation).toBe(false);
  });
});

describe("AnthropicLlmClient with the agent's request description", () => {
  it("sends the conversation as anthropicRequest builds it, the instruction appended, params under the description", async () => {
    const conversation = new ConversationBuilder()
      .user("fix the build")
      .toolCall({ name: "bash", input: { command: "npm test" }, result: "1 failing" })
      .build();
    const client = new AnthropicLlmClient({
      client: sdk(),
      request: AGENT as never,
      params: { metadata: { user_id: "u" }, tools: [] },
    });
    expect(client.model).toBe("claude-opus-5-5");
    await client.complete({ prompt: "Summarize.", conversation, maxTokens: 300 });
    const body = server.requestsTo("messages")[0]!.body as Record<string, unknown>;
    const agent = anthropicRequest(AGENT as never, conversation, { maxTokens: 300 });
    const messages = toAnthropicMessages(conversation);
    const last = messages.at(-1)!;
    expect(body).toEqual({
      ...agent,
      metadata: { user_id: "u" },
      messages: [
        ...messages.slice(0, -1),
        {
          role: "user",
          content: [...(last.content as object[]), { type: "text", text: "Summarize." }],
        },
      ],
    });
  });

  it("adds a new user message after an assistant message, and reserves room for thinking", async () => {
    const conversation = new ConversationBuilder().user("hi").assistant("hello").build();
    const client = new AnthropicLlmClient({
      client: sdk(),
      model: "claude-haiku-5-5",
      request: { ...AGENT, thinking: { type: "enabled", budget_tokens: 1500 } } as never,
    });
    await client.complete({
      prompt: "Summarize.",
      system: "Be brief.",
      conversation,
      maxTokens: 500,
    });
    const body = server.requestsTo("messages")[0]!.body as {
      model: string;
      max_tokens: number;
      messages: unknown[];
    };
    expect(body.model).toBe("claude-opus-5-5");
    expect(body.max_tokens).toBe(2000);
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "Be brief.\n\nSummarize." }],
    });
    // Transcript requests (no conversation) go to `model`.
    await client.complete({ prompt: "p" });
    expect((server.requestsTo("messages")[1]!.body as { model: string }).model).toBe(
      "claude-haiku-5-5",
    );
  });

  it("needs a model or a request, and checks the request", () => {
    expect(() => new AnthropicLlmClient({ client: sdk() } as never)).toThrow(/model: is required/);
    expect(() => new AnthropicLlmClient({ client: sdk(), request: { model: "" } })).toThrow(
      /request\.model/,
    );
    expect(
      () => new AnthropicLlmClient({ client: sdk(), request: { model: "m", tools: "x" } as never }),
    ).toThrow(/request\.tools/);
  });
});

// The tool use docs (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools):
// "`none` prevents Claude from using any tools", and "When using prompt caching, changes to the
// `tool_choice` parameter will invalidate cached message blocks. Tool definitions and system
// prompts remain cached, but message content must be reprocessed." So the summary request sets
// no `tool_choice` (its messages are read from the cache), and only a reply that called a tool
// anyway is asked again with `none`, the tools kept (the history's `tool_use` blocks need them).
describe("AnthropicLlmClient when the model calls a tool instead of summarizing", () => {
  const conversation = new ConversationBuilder()
    .user("fix the build")
    .toolCall({ name: "bash", input: { command: "npm test" }, result: "1 failing" })
    .build();
  const callsBash = {
    type: "message" as const,
    content: [
      { type: "text", text: "Let me re-run the tests first.", citations: null },
      { type: "tool_use", id: "toolu_again", name: "bash", input: { command: "npm test" } },
    ],
    usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 900 },
  };

  it("asks once more with tool_choice none, the tools kept, and reports both calls' usage", async () => {
    server.queue("messages", callsBash, {
      type: "message",
      text: "## Summary\nThe build fails one test.",
      usage: { input_tokens: 30, output_tokens: 40, cache_creation_input_tokens: 800 },
    });
    const client = new AnthropicLlmClient({ client: sdk(), request: AGENT as never });
    await expect(client.complete({ prompt: "Summarize.", conversation })).resolves.toEqual({
      text: "## Summary\nThe build fails one test.",
      usage: {
        inputTokens: 40,
        outputTokens: 60,
        cacheCreationInputTokens: 800,
        cacheReadInputTokens: 900,
      },
    });
    const [first, second] = server
      .requestsTo("messages")
      .map((request) => request.body as Record<string, unknown>);
    expect(first).not.toHaveProperty("tool_choice");
    expect(second).toEqual({ ...first, tool_choice: { type: "none" } });
    expect(second?.["tools"]).toEqual(AGENT.tools);
  });

  it("fails with llm_error when the reply to tool_choice none still calls a tool", async () => {
    server.queue("messages", callsBash, callsBash);
    const client = new AnthropicLlmClient({ client: sdk(), request: AGENT as never });
    await expect(client.complete({ prompt: "Summarize.", conversation })).rejects.toMatchObject({
      code: "llm_error",
      message: expect.stringMatching(
        /^the summary response, asked again with tool_choice none stopped with "tool_use": the model called a tool/,
      ),
    });
    expect(server.requestsTo("messages")).toHaveLength(2);
  });

  it("does not ask again when the request offers no tools, or already says none", async () => {
    server.queue("messages", callsBash, callsBash);
    const bare = new AnthropicLlmClient({ client: sdk(), request: { model: AGENT.model } });
    await expect(bare.complete({ prompt: "Summarize." })).rejects.toThrow(/"tool_use"/);
    const none = new AnthropicLlmClient({
      client: sdk(),
      request: AGENT as never,
      params: { tool_choice: { type: "none" } },
    });
    await expect(none.complete({ prompt: "Summarize.", conversation })).rejects.toThrow(
      /^the summary response stopped with "tool_use"/,
    );
    expect(server.requestsTo("messages")).toHaveLength(2);
  });

  it("reads the agent's messages from the cache; only the second ask, with none, pays them again", async () => {
    const standIn = new AnthropicStandIn({ promptCache: true });
    const reads: number[] = [];
    const recording: AnthropicMessagesClient = {
      messages: {
        create: async (body, options) => {
          const response = await standIn.messages.create(body, options);
          reads.push(response.usage.cache_read_input_tokens ?? 0);
          return response;
        },
        countTokens: (body, options) => standIn.messages.countTokens(body, options),
      },
    };
    await recording.messages.create(
      anthropicRequest(AGENT as never, conversation, { maxTokens: 1 }),
    );
    standIn.reply({ toolCalls: [{ name: "bash", input: { command: "npm test" } }] }, "## Summary");
    const client = new AnthropicLlmClient({ client: recording, request: AGENT as never });
    await client.complete({ prompt: "Summarize.", conversation, maxTokens: 100 });
    const [, first] = standIn.requests.map((request) => request.body);
    const cached = (messages: unknown[]) =>
      roughTokens({ system: AGENT.system, tools: AGENT.tools, messages });
    // The first ask reads every message the agent's request wrote (the instruction joins the
    // last one); the second, with another tool_choice, only the tools and the system prompt.
    const sent = (first as { messages: unknown[] }).messages;
    expect(reads).toEqual([0, cached(sent.slice(0, -1)), cached([])]);
  });
});
