import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeminiApiServer, type GeminiReply } from "../../test/support/gemini-api-server.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import { GEN_AI_ATTRIBUTES as G } from "../otel/attributes.js";
import { traceLlmClient } from "../otel/trace-llm-client.js";
import { ConversationBuilder } from "../testing/index.js";
import { fromGeminiContents } from "./contents-in.js";
import { GeminiLlmClient } from "./llm-client.js";

let server: GeminiApiServer;
let ai: GoogleGenAI;
let next: GeminiReply | (() => Promise<GeminiReply>) = { parts: [{ text: "A summary." }] };
const body = () => server.requests.at(-1)!.body;

beforeAll(async () => {
  server = await GeminiApiServer.start(() => (typeof next === "function" ? next() : next), {
    minCacheTokens: 20,
  });
  ai = new GoogleGenAI({
    apiKey: "test",
    httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } },
  });
});
afterAll(() => server.close());

const AGENT = {
  model: "gemini-3-flash-preview",
  config: {
    systemInstruction: "You are a coding agent.",
    tools: [{ functionDeclarations: [{ name: "read", description: "Reads a file." }] }],
    thinkingConfig: { thinkingBudget: 500 },
  },
};

describe("GeminiLlmClient", () => {
  it("sends a transcript with the summarizer's system instruction, and returns text without thoughts, and usage", async () => {
    next = {
      parts: [{ text: "Weighing.", thought: true }, { text: "A summary." }],
      thoughtsTokens: 12,
    };
    const client = new GeminiLlmClient({ client: ai, model: "gemini-2.5-flash" });
    expect(client.acceptsConversation).toBe(false);
    const reply = await client.complete({
      prompt: "Summarize this.",
      system: "Be brief.",
      maxTokens: 300,
    });
    expect(reply.text).toBe("A summary.");
    expect(reply.usage).toMatchObject({ cacheReadInputTokens: 0, cacheCreationInputTokens: 0 });
    expect(reply.usage?.outputTokens).toBeGreaterThan(12);
    expect(server.requests.at(-1)?.model).toBe("gemini-2.5-flash");
    expect(body()).toEqual({
      contents: [{ role: "user", parts: [{ text: "Summarize this." }] }],
      systemInstruction: { role: "user", parts: [{ text: "Be brief." }] },
      // Thinking counts in the output budget: as much again is kept for it.
      generationConfig: { maxOutputTokens: 600 },
    });
  });

  it("with the agent's request, sends its own contents, system instruction and tools with the instruction appended, read from the cache", async () => {
    next = { parts: [{ text: "A summary." }] };
    const client = new GeminiLlmClient({ client: ai, request: AGENT });
    expect(client.acceptsConversation).toBe(true);
    expect(client.model).toBe("gemini-3-flash-preview");
    const conversation = fromGeminiContents([
      { role: "user", parts: [{ text: `Read a.ts. ${"Context. ".repeat(40)}` }] },
      { role: "model", parts: [{ text: "It exports one constant." }] },
    ]);
    // The agent's own request first, as its loop sent it.
    await ai.models.generateContent({
      ...AGENT,
      contents: [{ role: "user", parts: [{ text: `Read a.ts. ${"Context. ".repeat(40)}` }] }],
    });
    const reply = await client.complete({
      prompt: "Summarize the conversation above.",
      system: "You are a conversation summarizer.",
      maxTokens: 256,
      conversation,
    });
    expect(body()["tools"]).toEqual(AGENT.config.tools);
    // The tools stay (the cached prefix), but none may be called: a call is no summary.
    expect(body()["toolConfig"]).toEqual({ functionCallingConfig: { mode: "NONE" } });
    expect(body()["systemInstruction"]).toEqual({
      role: "user",
      parts: [{ text: "You are a coding agent." }],
    });
    expect(body()["contents"]).toEqual([
      { role: "user", parts: [{ text: `Read a.ts. ${"Context. ".repeat(40)}` }] },
      { role: "model", parts: [{ text: "It exports one constant." }] },
      {
        role: "user",
        parts: [
          { text: "You are a conversation summarizer.\n\nSummarize the conversation above." },
        ],
      },
    ]);
    expect(body()["generationConfig"]).toEqual({
      maxOutputTokens: 756,
      thinkingConfig: { thinkingBudget: 500 },
    });
    expect(reply.usage?.cacheReadInputTokens).toBeGreaterThan(0);
  });

  it("puts the instruction in the conversation's last user content when it ends with one", async () => {
    const client = new GeminiLlmClient({
      client: ai,
      request: { ...AGENT, config: { ...AGENT.config, thinkingConfig: { thinkingBudget: 0 } } },
    });
    const conversation = new ConversationBuilder()
      .user("first")
      .assistant("reply")
      .user("second")
      .build();
    await client.complete({ prompt: "Summarize.", conversation });
    expect(body()["contents"]).toEqual([
      { role: "user", parts: [{ text: "first" }] },
      { role: "model", parts: [{ text: "reply" }] },
      { role: "user", parts: [{ text: "second" }, { text: "Summarize." }] },
    ]);
    expect(body()["generationConfig"]).toMatchObject({ maxOutputTokens: 2048 });
  });

  it("passes the abort signal, and SDK errors as they are (LLMCompactor reports them as llm_error)", async () => {
    const client = new GeminiLlmClient({ client: ai, model: "gemini-2.5-flash" });
    let release = () => {};
    next = () =>
      new Promise((resolve) => {
        release = () => resolve({ parts: [{ text: "late" }] });
      });
    const controller = new AbortController();
    const pending = client.complete({ prompt: "p", signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    release();
    next = { error: { status: 400, message: "Bad request from the summarizer." } };
    const compactor = new LLMCompactor(client, { keepRecentTurns: 1 });
    const messages = new ConversationBuilder()
      .user("Read a.ts")
      .assistant(`It holds ${"many lines ".repeat(400)}`)
      .user("And b.ts?")
      .assistant("Done.")
      .build();
    const failure = await compactor
      .compactAsync(messages, new Map())
      .catch((error: unknown) => error);
    expect(CompactionError.isInstance(failure) && failure.code).toBe("llm_error");
    expect(String((failure as CompactionError).cause)).toMatch(/Bad request from the summarizer/);
  });

  it("refuses a reply cut off, declined or calling a tool: its text is no summary", async () => {
    const client = new GeminiLlmClient({ client: ai, model: "gemini-2.5-flash" });
    for (const finishReason of ["MAX_TOKENS", "SAFETY", "UNEXPECTED_TOOL_CALL"]) {
      next = { parts: [{ text: "A summ" }], finishReason };
      await expect(client.complete({ prompt: "p" })).rejects.toThrow(
        `stopped with "${finishReason}"`,
      );
    }
  });

  it("leaves Gemini thoughts out of a transcript summary, as it does thinking", async () => {
    next = { parts: [{ text: "A summary." }] };
    const client = new GeminiLlmClient({ client: ai, model: "gemini-2.5-flash" });
    const messages = fromGeminiContents([
      { role: "user", parts: [{ text: "Read a.ts" }] },
      {
        role: "model",
        parts: [
          { text: "Private plan.", thought: true, thoughtSignature: "SIGNATURE-1" },
          { text: `It holds ${"many lines ".repeat(400)}` },
        ],
      },
      { role: "user", parts: [{ text: "And b.ts?" }] },
      { role: "model", parts: [{ text: "Done." }] },
    ]);
    const { result } = await new LLMCompactor(client, { keepRecentTurns: 1 }).compactAsync(
      messages,
      new Map(),
    );
    expect(result.turnsCompacted).toBe(1);
    const sent = JSON.stringify(body()["contents"]);
    expect(sent).toContain("many lines");
    expect(sent).not.toContain("Private plan");
    expect(sent).not.toContain("SIGNATURE-1");
  });

  it("is traced as a GenAI chat span with its usage", async () => {
    next = { parts: [{ text: "A summary." }] };
    const { tracer, spans } = memoryTracing();
    const traced = traceLlmClient(new GeminiLlmClient({ client: ai, request: AGENT }), {
      model: AGENT.model,
      provider: "gcp.gemini",
      tracer,
    });
    expect(traced.acceptsConversation).toBe(true);
    await traced.complete({ prompt: "Summarize.", maxTokens: 100 });
    expect(spans().at(-1)?.attributes).toMatchObject({
      [G.PROVIDER_NAME]: "gcp.gemini",
      [G.REQUEST_MODEL]: AGENT.model,
      [G.USAGE_OUTPUT_TOKENS]: expect.any(Number),
      [G.USAGE_INPUT_TOKENS]: expect.any(Number),
    });
  });

  it("refuses bad options, naming the field", () => {
    const problem = (options: unknown) => {
      try {
        new GeminiLlmClient(options as never);
      } catch (error) {
        return error instanceof ValidationError
          ? error.issues.map((issue) => issue.path.join("."))
          : error;
      }
      return [];
    };
    expect(problem({ client: ai })).toEqual(["model"]);
    expect(problem({ client: {}, model: "m" })).toEqual(["client"]);
    expect(problem({ client: ai, model: "m", maxOutputTokens: 0 })).toEqual(["maxOutputTokens"]);
    expect(problem({ client: ai, request: { config: {} } })).toEqual(["request.model"]);
    expect(problem({ client: ai, model: "m", extra: 1 })).toEqual(["extra"]);
  });
});
