import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesApiServer } from "../../test/support/messages-api-server.js";
import { ConversationBuilder } from "../testing/builders.js";
import { AnthropicLlmClient } from "./llm-client.js";
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
