import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChatCompletionsServer } from "../../test/support/chat-completions-server.js";
import { ValidationError } from "../core/errors.js";
import { AgentSession, CompactionError, LLMCompactor } from "../index.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { ChatCompletionsLlmClient } from "./llm-client.js";
import { chatCompletionsRequest } from "./request.js";

const AGENT = {
  model: "qwen3-coder",
  system: "You are a coding agent.",
  tools: [
    {
      type: "function" as const,
      function: { name: "read", parameters: { type: "object", properties: {} } },
    },
  ],
};

describe("ChatCompletionsLlmClient through the openai SDK", () => {
  let server: ChatCompletionsServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ChatCompletionsServer.start(() => ({ content: "Goal: fix. Done: read a.ts." }));
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  beforeEach(() => {
    server.script = () => ({ content: "Goal: fix. Done: read a.ts." });
  });
  afterAll(() => server.close());

  it("sends a transcript as one user message after the summarizer's system prompt", async () => {
    const summarizer = new ChatCompletionsLlmClient({ client, model: "gpt-5.6-nano" });
    expect(summarizer.acceptsConversation).toBe(false);
    const reply = await summarizer.complete({ prompt: "Summarize: …", system: "Be terse." });
    expect(reply.text).toBe("Goal: fix. Done: read a.ts.");
    expect(reply.usage).toMatchObject({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
    });
    expect(server.requests.at(-1)?.body).toEqual({
      model: "gpt-5.6-nano",
      messages: [
        { role: "system", content: "Be terse." },
        { role: "user", content: "Summarize: …" },
      ],
      // The summary's 2,048, and as much again for reasoning, which the field counts.
      max_completion_tokens: 4096,
    });
  });

  it("leaves no room for reasoning where it is off, or in a host's max_tokens", async () => {
    const off = new ChatCompletionsLlmClient({
      client,
      model: "gpt-5.6-nano",
      params: { reasoning_effort: "none" },
    });
    await off.complete({ prompt: "Summarize: …", maxTokens: 500 });
    expect(server.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 500 });
    const host = new ChatCompletionsLlmClient({
      client,
      model: "deepseek-chat",
      maxTokensField: "max_tokens",
    });
    await host.complete({ prompt: "Summarize: …" });
    expect(server.requests.at(-1)?.body).toMatchObject({ max_tokens: 2048 });
  });

  it("sends the agent's own request with the instruction appended, read from the prompt cache", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Fix the bug in a.ts");
    session.addAssistant([{ type: "text", text: "Looking at it now." }]);
    const agentRequest = chatCompletionsRequest(AGENT, session.messages);
    await client.chat.completions.create(agentRequest);
    const summarizer = new ChatCompletionsLlmClient({
      client,
      request: AGENT,
      maxTokensField: "max_tokens",
      params: { temperature: 0 },
    });
    expect(summarizer.acceptsConversation).toBe(true);
    expect(summarizer.model).toBe("qwen3-coder");
    const reply = await summarizer.complete({
      prompt: "Summarize the conversation.",
      system: "You write summaries.",
      maxTokens: 300,
      conversation: session.messages,
    });
    const body = server.requests.at(-1)?.body;
    expect(body).toEqual({
      ...agentRequest,
      messages: [
        ...agentRequest.messages,
        { role: "user", content: "You write summaries.\n\nSummarize the conversation." },
      ],
      tool_choice: "none",
      temperature: 0,
      max_tokens: 300,
    });
    // Everything before the instruction was the agent's request: the host's cache has it.
    expect(reply.usage?.cacheReadInputTokens).toBeGreaterThan(0);
    expect(reply.usage?.cacheReadInputTokens).toBe(
      (await client.chat.completions.create(agentRequest)).usage?.prompt_tokens,
    );
  });

  it("appends the instruction to a last user message, never a second user message in a row (review 60f #3)", async () => {
    const summarizer = new ChatCompletionsLlmClient({ client, request: AGENT });
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Fix the bug in a.ts");
    session.addAssistant([{ type: "text", text: "Fixed." }]);
    session.addUserText("Now b.ts, please");
    const agentRequest = chatCompletionsRequest(AGENT, session.messages);
    await summarizer.complete({ prompt: "Summarize.", conversation: session.messages });
    const sent = server.requests.at(-1)?.body["messages"] as { role: string; content: unknown }[];
    // Gemma's and older Mistral's chat templates refuse user, user.
    expect(sent.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent.slice(0, -1)).toEqual(agentRequest.messages.slice(0, -1));
    expect(sent.at(-1)).toEqual({ role: "user", content: "Now b.ts, please\n\nSummarize." });

    // A user message of parts takes the instruction as a text part of its own.
    const parts = [
      { role: "user" as const, content: [{ type: "text" as const, text: "Look at this" }] },
    ];
    const withParts = new ChatCompletionsLlmClient({ client, request: AGENT });
    await withParts.complete({ prompt: "Summarize.", conversation: fromChatMessages(parts) });
    expect((server.requests.at(-1)!.body["messages"] as unknown[]).at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Look at this" },
        { type: "text", text: "Summarize." },
      ],
    });
  });

  it("throws the SDK's error, which LLMCompactor reports as llm_error", async () => {
    server.contextWindow = 10;
    try {
      const summarizer = new ChatCompletionsLlmClient({ client, model: "gpt-5.6-nano" });
      await expect(summarizer.complete({ prompt: "x".repeat(200) })).rejects.toBeInstanceOf(
        OpenAI.BadRequestError,
      );
      const session = new AgentSession({
        contextLimit: 100_000,
        compactor: false,
        llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1 }),
      });
      for (const text of ["one", "two", "three"]) {
        session.addUserText(text);
        session.addAssistant([{ type: "text", text: `answer ${text} `.repeat(300) }]);
      }
      const failure = await session.forceCompact().catch((error: unknown) => error);
      expect(CompactionError.isInstance(failure)).toBe(true);
      expect((failure as CompactionError).code).toBe("llm_error");
      expect((failure as CompactionError).cause).toBeInstanceOf(OpenAI.BadRequestError);
    } finally {
      server.contextWindow = undefined;
    }
  });

  it("refuses a reply cut off or declined: its text is no summary", async () => {
    const summarizer = new ChatCompletionsLlmClient({ client, model: "gpt-5.6-nano" });
    for (const finishReason of ["length", "content_filter", "tool_calls"]) {
      server.script = () => ({ content: "Goal: fix. Done: re", finishReason });
      await expect(summarizer.complete({ prompt: "Summarize" })).rejects.toThrow(
        `stopped with "${finishReason}"`,
      );
    }
  });

  it("passes the abort signal, so a cancelled summary stops", async () => {
    const controller = new AbortController();
    server.script = async () => {
      controller.abort();
      return { content: "late" };
    };
    const summarizer = new ChatCompletionsLlmClient({ client, model: "gpt-5.6-nano" });
    await expect(
      summarizer.complete({ prompt: "x", signal: controller.signal }),
    ).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it("refuses bad options, naming each field", () => {
    const issues = (options: unknown) => {
      try {
        new ChatCompletionsLlmClient(options as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).issues.map((issue) => issue.path.join("."));
      }
      return [];
    };
    expect(issues({ client })).toEqual(["model"]);
    expect(issues({ client: {}, model: "m" })).toEqual(["client"]);
    expect(issues({ client, model: "m", maxTokens: 0, maxTokensField: "tokens" })).toEqual([
      "maxTokens",
      "maxTokensField",
    ]);
    expect(issues({ client, request: { model: "m", reasoning: "strip" } })).toEqual([
      "request.reasoning",
    ]);
    expect(issues({ client, model: "m", temperature: 0 })).toEqual(["temperature"]);
  });
});
