import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  AnthropicLikeModel,
  pairingProblems,
  readFileTool,
} from "../../test/support/langchain-anthropic.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { CompactionError, HybridCompactor, LLMCompactor, SUMMARY_PREFIX } from "../index.js";
import { COMPACTION_SPAN_NAME, traceCompactions, traceLlmClient } from "../otel/index.js";
import { ConversationBuilder } from "../testing/index.js";
import { compactionMiddleware, LangChainLlmClient } from "./index.js";

const reply = (text: string) =>
  new AIMessage({
    content: text,
    usage_metadata: {
      input_tokens: 900,
      output_tokens: 40,
      total_tokens: 940,
      input_token_details: { cache_read: 600 },
    } as never,
  });

describe("LangChainLlmClient", () => {
  it("sends the summarizer's system prompt and the prompt, and returns the text with its usage", async () => {
    const model = fakeModel().respond(reply("Goal: fix the build."));
    const client = new LangChainLlmClient({ model, callOptions: { tags: ["summary"] } });
    const signal = new AbortController().signal;
    const answer = await client.complete({
      prompt: "Summarize: …",
      system: "You summarize.",
      signal,
    });

    expect(answer).toEqual({
      text: "Goal: fix the build.",
      usage: { inputTokens: 300, cacheReadInputTokens: 600, outputTokens: 40 },
    });
    expect(client.acceptsConversation).toBe(false);
    const [call] = model.calls;
    expect(call?.messages).toEqual([
      new SystemMessage("You summarize."),
      new HumanMessage("Summarize: …"),
    ]);
    expect(call?.options).toMatchObject({ signal });
  });

  it("sends the agent's own request with the instruction last when given the conversation", async () => {
    const model = fakeModel().respond(new AIMessage("Summary."));
    const client = new LangChainLlmClient({
      model,
      conversation: { systemPrompt: "You are a coding agent.", tools: [readFileTool] },
    });
    const conversation = new ConversationBuilder()
      .user("Fix the build.")
      .toolCall({ name: "read_file", input: { path: "a.ts" }, result: "export {}" })
      .build();
    expect(client.acceptsConversation).toBe(true);
    expect(await client.complete({ prompt: "Summarize.", system: "Be brief.", conversation })).toBe(
      "Summary.",
    );

    const sent = model.calls[0]!.messages;
    expect(sent.map((message) => message.type)).toEqual(["system", "human", "ai", "tool", "human"]);
    expect(sent[0]?.text).toBe("You are a coding agent.");
    expect(sent.at(-1)?.text).toBe("Be brief.\n\nSummarize.");
    expect(pairingProblems(sent)).toEqual([]);
  });

  it("lets a model's error through: LLMCompactor reports it as llm_error with the cause", async () => {
    const overloaded = new Error("overloaded");
    const client = new LangChainLlmClient({ model: fakeModel().alwaysThrow(overloaded) });
    const compactor = new LLMCompactor(client, { keepRecentTurns: 1 });
    const conversation = new ConversationBuilder()
      .user(`First request. ${"details ".repeat(400)}`)
      .assistant(`Done. ${"findings ".repeat(400)}`)
      .user("Second request.")
      .build();
    const failure = await compactor
      .compactAsync(conversation, new Map())
      .catch((error: unknown) => error);
    expect(CompactionError.isInstance(failure) && failure.code).toBe("llm_error");
    expect((failure as CompactionError).cause).toBe(overloaded);
  });

  it.each([
    [
      "a tool call in place of the summary (the conversation's tools bound)",
      {
        content: "Let me read a.ts again first.",
        tool_calls: [{ id: "c1", name: "read_file", args: { path: "a.ts" }, type: "tool_call" }],
      },
      /"tool_calls": the model called a tool/,
    ],
    [
      "ChatAnthropic's reply cut at max_tokens",
      { content: "The user asked to fix", response_metadata: { stop_reason: "max_tokens" } },
      /"max_tokens": the summary was cut off/,
    ],
    [
      "ChatOpenAI's reply cut at its length",
      { content: "The user asked", response_metadata: { finish_reason: "length" } },
      /"length": the summary was cut off/,
    ],
    [
      "ChatOpenAI's filtered reply",
      { content: "I", response_metadata: { finish_reason: "content_filter" } },
      /"content_filter": the request was declined/,
    ],
    [
      "Gemini's reply cut at MAX_TOKENS",
      { content: "The user", response_metadata: { finishReason: "MAX_TOKENS" } },
      /"MAX_TOKENS": the summary was cut off/,
    ],
    [
      "Bedrock Converse's reply cut at max_tokens",
      { content: "The user", response_metadata: { stopReason: "max_tokens" } },
      /"max_tokens"/,
    ],
    [
      "Ollama's reply cut at its length",
      { content: "The user", response_metadata: { done_reason: "length" } },
      /"length"/,
    ],
    [
      "an incomplete Responses API reply",
      {
        content: "The user",
        response_metadata: {
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
        },
      },
      /"max_output_tokens"/,
    ],
  ])(
    "takes no unfinished reply as a summary: %s is an llm_error (review 60f #1)",
    async (_, fields, message) => {
      const model = fakeModel().respond(new AIMessage(fields as never));
      const client = new LangChainLlmClient({
        model,
        conversation: { systemPrompt: "You are a coding agent.", tools: [readFileTool] },
      });
      const failure = await client.complete({ prompt: "Summarize." }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(CompactionError.isInstance(failure) && failure.code).toBe("llm_error");
      expect((failure as Error).message).toMatch(message);
    },
  );

  it("takes a finished reply, whatever its stop reason's key, as the summary", async () => {
    for (const response_metadata of [
      { stop_reason: "end_turn" },
      { finish_reason: "stop" },
      { finishReason: "STOP" },
      { stopReason: "end_turn" },
      { done_reason: "stop" },
      { status: "completed" },
    ]) {
      const model = fakeModel().respond(new AIMessage({ content: "Summary.", response_metadata }));
      expect(await new LangChainLlmClient({ model }).complete({ prompt: "Summarize." })).toBe(
        "Summary.",
      );
    }
  });
  it("refuses bad options by name", () => {
    expect(() => new LangChainLlmClient({ model: {} as never })).toThrow(/model/);
    expect(
      () =>
        new LangChainLlmClient({ model: fakeModel(), conversation: { systemPrompt: 1 as never } }),
    ).toThrow(/conversation\.systemPrompt/);
    const withoutTools = { invoke: async () => new AIMessage("x") } as never;
    expect(
      () =>
        new LangChainLlmClient({ model: withoutTools, conversation: { tools: [readFileTool] } }),
    ).toThrow(/bindTools/);
  });

  it("writes the summaries of a compacting agent, the user's words kept beside them", async () => {
    const summarizer = fakeModel();
    for (let index = 0; index < 10; index += 1)
      summarizer.respond(reply("The agent read src/file-*.ts."));
    const like = new AnthropicLikeModel({ contextWindow: 30_000 });
    for (let step = 0; step < 40; step += 1) {
      like.reply({ toolCalls: [{ name: "read_file", input: { path: `src/file-${step}.ts` } }] });
    }
    like.reply({ text: "Done." });
    // Traced as docs/recipes.md shows: a span per compaction, the summary request a chat span in it.
    const { tracer, spans } = memoryTracing();
    const client = traceLlmClient(new LangChainLlmClient({ model: summarizer }), {
      model: "claude-haiku-5-5",
      provider: "anthropic",
      tracer,
    });
    const compaction = compactionMiddleware({
      contextLimit: 30_000,
      compactor: new HybridCompactor({
        client,
        keepRecentToolUses: 3,
        threshold: 0.5,
        targetUtilization: 0.2,
      }),
      onSession: (session) => traceCompactions(session, { tracer, summarizer: client }),
    });
    const agent = createAgent({
      model: like.model,
      tools: [readFileTool],
      middleware: [compaction],
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage("Read every file. Never touch package-lock.json.")] },
      { configurable: { thread_id: "summarized" }, recursionLimit: 500 },
    );

    expect(like.refusals).toEqual([]);
    expect(summarizer.calls.length).toBeGreaterThan(0);
    // The summarizer reads what the tools returned; the summary the state holds is marked as
    // the library's, and the user's words stay verbatim in every request.
    expect(summarizer.calls[0]?.messages.at(-1)?.text).toContain("// src/file-0.ts");
    const summary = result.messages.find((message) => message.text.startsWith(SUMMARY_PREFIX));
    expect(summary?.additional_kwargs).toMatchObject({ agent_compaction: "summary" });
    for (const call of like.model.calls) {
      expect(
        call.messages.some((message) => message.text.includes("Never touch package-lock.json")),
      ).toBe(true);
    }
    expect(
      compaction.sessionOf("summarized")?.compactionUsage.cacheReadInputTokens,
    ).toBeGreaterThan(0);
    const names = spans().map((span) => span.name);
    expect(names).toContain(COMPACTION_SPAN_NAME);
    expect(names).toContain("chat claude-haiku-5-5");
  });
});
