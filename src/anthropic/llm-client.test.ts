import Anthropic, { type APIError } from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MessagesApiServer } from "../../test/support/messages-api-server.js";
import { ValidationError } from "../core/errors.js";
import { AnthropicLlmClient, responseText } from "./llm-client.js";

const API_KEY = "sk-ant-api03-loopback-SECRET-0123456789";

let server: MessagesApiServer;

beforeEach(async () => {
  server = await MessagesApiServer.start();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

function sdk(options: ConstructorParameters<typeof Anthropic>[0] = {}): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0, ...options });
}

describe("AnthropicLlmClient", () => {
  it("sends one messages.create with the system prompt, max_tokens and the prompt", async () => {
    const client = new AnthropicLlmClient({
      client: sdk(),
      model: "claude-haiku-4-5",
      params: { service_tier: "standard_only", metadata: { user_id: "u-1" } },
    });
    await expect(
      client.complete({ prompt: "Summarize this.", system: "You summarize.", maxTokens: 512 }),
    ).resolves.toMatchObject({ text: "ok" });
    const [request] = server.requestsTo("messages");
    expect(request?.method).toBe("POST");
    expect(request?.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 512,
      system: "You summarize.",
      messages: [{ role: "user", content: "Summarize this." }],
      service_tier: "standard_only",
      metadata: { user_id: "u-1" },
    });
    expect(Object.values(request!.headers).join(" ")).toContain(API_KEY);
  });

  it("uses maxTokens from its options when the request sets none, and no system when none", async () => {
    const client = new AnthropicLlmClient({ client: sdk(), model: "m", maxTokens: 77 });
    await client.complete({ prompt: "p" });
    expect(server.requestsTo("messages")[0]?.body).toEqual({
      model: "m",
      max_tokens: 77,
      messages: [{ role: "user", content: "p" }],
    });
    await new AnthropicLlmClient({ client: sdk(), model: "m" }).complete({ prompt: "p" });
    expect(server.requestsTo("messages")[1]?.body).toMatchObject({ max_tokens: 2048 });
  });

  it("returns the text blocks concatenated, skipping thinking", async () => {
    server.queue("messages", {
      type: "message",
      content: [
        { type: "thinking", thinking: "hm", signature: "s" },
        { type: "text", text: "The user ", citations: null },
        { type: "text", text: "fixed the parser.", citations: null },
      ],
    });
    const client = new AnthropicLlmClient({ client: sdk(), model: "m" });
    await expect(client.complete({ prompt: "p" })).resolves.toMatchObject({
      text: "The user fixed the parser.",
    });
    server.queue("messages", { type: "message", content: [] });
    await expect(client.complete({ prompt: "p" })).resolves.toMatchObject({ text: "" });
  });

  it("refuses a reply that called a tool, was cut off or declined: its text is no summary (review 55c #1)", async () => {
    const client = new AnthropicLlmClient({ client: sdk(), model: "m" });
    server.queue("messages", {
      type: "message",
      content: [
        { type: "text", text: "Let me re-read src/f3.ts first.", citations: null },
        { type: "tool_use", id: "toolu_1", name: "read", input: {} },
      ],
    });
    await expect(client.complete({ prompt: "p" })).rejects.toThrow(
      /stopped with "tool_use": the model called a tool/,
    );
    for (const stopReason of ["max_tokens", "refusal", "pause_turn"]) {
      server.queue("messages", { type: "message", text: "## Summary\nThe ag", stopReason });
      await expect(client.complete({ prompt: "p" })).rejects.toThrow(
        `stopped with "${stopReason}"`,
      );
    }
  });

  it("throws the SDK's own error for an API error", async () => {
    server.queue("messages", { type: "error", status: 400, message: "max_tokens: too large" });
    const client = new AnthropicLlmClient({ client: sdk(), model: "m" });
    const error = await client.complete({ prompt: "p" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as APIError).status).toBe(400);
    expect((error as Error).message).toContain("max_tokens: too large");
  });

  it("scrubs the API key from an error that echoes it, keeping the error object", async () => {
    server.queue("messages", {
      type: "error",
      status: 401,
      message: `invalid x-api-key: ${API_KEY}`,
    });
    const client = new AnthropicLlmClient({ client: sdk(), model: "m" });
    const error = await client.complete({ prompt: "p" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    const apiError = error as APIError;
    expect(apiError.message).toContain("invalid x-api-key: [redacted]");
    for (const text of [
      apiError.message,
      String(apiError.stack),
      String(apiError),
      JSON.stringify(apiError),
      JSON.stringify(apiError.error),
      String(apiError.apiMessage),
    ]) {
      expect(text).not.toContain(API_KEY);
    }
  });

  it("passes the abort signal to the SDK: aborting closes the request", async () => {
    server.queue("messages", { type: "hang" });
    const client = new AnthropicLlmClient({ client: sdk(), model: "m" });
    const controller = new AbortController();
    const pending = client.complete({ prompt: "p", signal: controller.signal });
    const [request] = await server.waitForRequests("messages", 1);
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    await expect(request!.outcome).resolves.toBe("closed_by_client");
  });

  it("builds a default client from the environment", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", API_KEY);
    vi.stubEnv("ANTHROPIC_AUTH_TOKEN", undefined);
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
    vi.stubEnv("ANTHROPIC_LOG", undefined);
    const client = new AnthropicLlmClient({ model: "m", requestOptions: { maxRetries: 0 } });
    await expect(client.complete({ prompt: "p" })).resolves.toMatchObject({ text: "ok" });
    expect(server.requestsTo("messages")).toHaveLength(1);
  });

  it("validates its options", () => {
    expect(() => new AnthropicLlmClient({ client: sdk(), model: "" })).toThrow(/model/);
    expect(() => new AnthropicLlmClient({ client: {} as never, model: "m" })).toThrow(
      ValidationError,
    );
    expect(() => new AnthropicLlmClient({ client: sdk(), model: "m", maxTokens: 0 })).toThrow(
      /maxTokens/,
    );
    expect(() => new AnthropicLlmClient({ client: sdk(), model: "m", extra: 1 } as never)).toThrow(
      /extra/,
    );
  });
});

describe("responseText", () => {
  it("joins text blocks only", () => {
    expect(
      responseText({
        content: [
          { type: "text", text: "a", citations: null },
          { type: "redacted_thinking", data: "x" },
          { type: "text", text: "b", citations: null },
        ],
      }),
    ).toBe("ab");
  });
});
