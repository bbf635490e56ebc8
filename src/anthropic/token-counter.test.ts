import Anthropic from "@anthropic-ai/sdk";
import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesApiServer } from "../../test/support/messages-api-server.js";
import { ValidationError } from "../core/errors.js";
import { estimateTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/builders.js";
import { toAnthropicMessages } from "./request.js";
import { AnthropicTokenCounter, type TokenCountFallback } from "./token-counter.js";

const API_KEY = "sk-ant-api03-counter-SECRET-0123456789";

const tools: Tool[] = [
  {
    name: "read_file",
    description: "Reads a file",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
  },
];

const conversation = new ConversationBuilder()
  .user("Read a.ts")
  .toolCall({
    name: "read_file",
    input: { path: "a.ts" },
    result: "export {}",
    compactSummary: "a.ts: empty",
  })
  .assistant("It is empty.")
  .build();

let server: MessagesApiServer;

beforeEach(async () => {
  server = await MessagesApiServer.start();
});

afterEach(async () => {
  await server.close();
});

function sdk(): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
}

describe("AnthropicTokenCounter", () => {
  it("counts with messages.countTokens, system and tools included", async () => {
    server.queue("count_tokens", { type: "tokens", inputTokens: 1234 });
    const counter = new AnthropicTokenCounter({
      client: sdk(),
      model: "claude-sonnet-5-5",
      system: "You are a coding agent.",
      tools,
      toolChoice: { type: "auto" },
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    await expect(counter.countTokens(conversation)).resolves.toBe(1234);
    const [request] = server.requestsTo("count_tokens");
    expect(request?.body).toEqual({
      model: "claude-sonnet-5-5",
      messages: toAnthropicMessages(conversation),
      system: "You are a coding agent.",
      tools,
      tool_choice: { type: "auto" },
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    expect(JSON.stringify(request?.body)).not.toContain("compactSummary");
  });

  it("falls back to the local estimate (system and tools included) and reports why", async () => {
    server.queue("count_tokens", {
      type: "error",
      status: 500,
      message: `upstream rejected key ${API_KEY}`,
    });
    const fallbacks: TokenCountFallback[] = [];
    const counter = new AnthropicTokenCounter({
      client: sdk(),
      model: "m",
      system: [{ type: "text", text: "x".repeat(400) }],
      tools,
      onFallback: (fallback) => fallbacks.push(fallback),
    });
    const expected =
      estimateTokens(conversation) + 100 + Math.ceil(JSON.stringify(tools).length / 4);
    await expect(counter.countTokens(conversation)).resolves.toBe(expected);
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]!.estimate).toBe(expected);
    expect(fallbacks[0]!.error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((fallbacks[0]!.error as Error).message).not.toContain(API_KEY);
  });

  it("falls back when the connection drops or the answer is not a count", async () => {
    server.queue(
      "count_tokens",
      { type: "drop" },
      { type: "json", status: 200, body: { tokens: 5 } },
    );
    const errors: unknown[] = [];
    const counter = new AnthropicTokenCounter({
      client: sdk(),
      model: "m",
      onFallback: ({ error }) => errors.push(error),
    });
    await expect(counter.countTokens(conversation)).resolves.toBe(estimateTokens(conversation));
    await expect(counter.countTokens(conversation)).resolves.toBe(estimateTokens(conversation));
    expect(errors[0]).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(String(errors[1])).toMatch(/not a token count/);
  });

  it("falls back silently without a callback", async () => {
    server.queue("count_tokens", { type: "error", status: 404 });
    const counter = new AnthropicTokenCounter({ client: sdk(), model: "m" });
    await expect(counter.countTokens(conversation)).resolves.toBe(estimateTokens(conversation));
  });

  it("estimates an empty conversation locally, without a request", async () => {
    const counter = new AnthropicTokenCounter({ client: sdk(), model: "m", system: "abcd" });
    await expect(counter.countTokens([])).resolves.toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it("rejects bad messages and bad options instead of falling back", async () => {
    const counter = new AnthropicTokenCounter({ client: sdk(), model: "m" });
    await expect(counter.countTokens([{ role: "user" }] as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(() => new AnthropicTokenCounter({ client: sdk(), model: "" })).toThrow(/model/);
    expect(
      () => new AnthropicTokenCounter({ client: sdk(), model: "m", onFallback: 1 as never }),
    ).toThrow(/onFallback/);
  });
});
