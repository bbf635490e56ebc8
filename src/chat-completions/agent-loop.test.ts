import OpenAI from "openai";
import type { ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import type { ReasoningRule } from "../../test/support/chat-completions-server.js";
import {
  ChatCompletionsServer,
  type ChatScript,
} from "../../test/support/chat-completions-server.js";
import { memoryTracing } from "../../test/support/otel-tracing.js";
import { AgentSession, LLMCompactor, validateConversation } from "../index.js";
import { traceCompactions, traceLlmClient } from "../otel/index.js";
import { appendChatCompletion } from "./chat-completion.js";
import { ChatCompletionsLlmClient } from "./llm-client.js";
import { type ChatCompletionsRequestDescription, chatCompletionsRequest } from "./request.js";
import { answerRecallToolCall, RECALL_CHAT_TOOL } from "./tools.js";

// The README's loop through the real openai SDK against the loopback Chat Completions API,
// for as long as it takes to compact several times: maybeCompact, chatCompletionsRequest
// (toChatMessages), chat.completions.create, appendChatCompletion, addToolResults. Summaries
// come from the same host, sent as the agent's own request. Not one request is refused.

const MODEL = "deepseek-v4-pro";
const READ_TOOL = {
  type: "function" as const,
  function: {
    name: "read",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
};

/**
 * A reasoning model: two reads per request (reasoning before each), then an answer; summaries
 * when asked (tools offered with `tool_choice: "none"`, or none offered: the transcript's request).
 */
const agent: ChatScript = (request) => {
  const body = request.body;
  if (isSummaryRequest(body))
    return { content: "Goal: review files. Done: read f0, f1. Next: answer." };
  const messages = body["messages"] as { role: string }[];
  const sinceUser = messages.length - messages.findLastIndex((message) => message.role === "user");
  const step = messages.slice(-sinceUser).filter((message) => message.role === "tool").length;
  if (step >= 2) return { content: "Done.", reasoning: "Both files read." };
  return {
    toolCalls: [{ name: "read", arguments: JSON.stringify({ path: `f${step}.ts` }) }],
    reasoning: `Read f${step} next.`,
  };
};

async function runTurn(
  session: AgentSession,
  client: OpenAI,
  description: ChatCompletionsRequestDescription,
  text: string,
): Promise<void> {
  session.addUserText(text);
  for (;;) {
    await session.maybeCompact();
    expect(validateConversation(session.messages, { provider: "chat-completions" })).toEqual([]);
    const completion = await client.chat.completions.create(
      chatCompletionsRequest(description, session.messages),
    );
    appendChatCompletion(session, completion);
    const calls = (completion.choices[0]?.message.tool_calls ??
      []) as ChatCompletionMessageFunctionToolCall[];
    if (calls.length === 0) return;
    session.addToolResults(
      calls.map((call) => ({
        type: "tool_result" as const,
        toolUseId: call.id,
        content: `${call.function.arguments}\n${"line of code\n".repeat(300)}`,
      })),
    );
  }
}

/** A summary's request: the agent's with `tool_choice: "none"`, or the transcript's, without tools. */
function isSummaryRequest(body: Record<string, unknown>): boolean {
  return body["tool_choice"] === "none" || body["tools"] === undefined;
}

let server: ChatCompletionsServer | undefined;
afterEach(() => server?.close());

async function start(reasoning: ReasoningRule) {
  server = await ChatCompletionsServer.start(agent, { reasoning, contextWindow: 12_000 });
  return { server, client: new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 }) };
}

describe("an agent loop on Chat Completions, through compaction", () => {
  it("keeps every request valid on DeepSeek (reasoning back with its calls), summaries read from cache, traced", async () => {
    const { server, client } = await start("required-for-tool-calls");
    const description = {
      model: MODEL,
      system: "You review code.",
      tools: [READ_TOOL, RECALL_CHAT_TOOL],
    };
    const tracing = memoryTracing();
    const summarizer = traceLlmClient(
      new ChatCompletionsLlmClient({ client, request: description }),
      {
        model: MODEL,
        provider: "deepseek",
        tracer: tracing.tracer,
      },
    );
    const session = new AgentSession({
      contextLimit: 12_000,
      compactor: false,
      llmCompactor: new LLMCompactor(summarizer, { keepRecentTurns: 1 }),
    });
    traceCompactions(session, { tracer: tracing.tracer, summarizer });
    let compactions = 0;
    session.on((event) => {
      if (event.type === "compaction_end") compactions += 1;
    });
    for (let turn = 0; turn < 8; turn += 1)
      await runTurn(session, client, description, `Review batch ${turn}.`);

    expect(server.refusals).toEqual([]);
    expect(compactions).toBeGreaterThanOrEqual(2);
    // Dollars: the summaries that fit the window with the agent's own prefix sent it, read from
    // the host's cache (the others sent the transcript).
    const summaries = server.requests.filter((request) => isSummaryRequest(request.body));
    expect(
      summaries.filter((request) => request.body["tool_choice"] === "none").length,
    ).toBeGreaterThan(0);
    expect(session.compactionUsage.cacheReadInputTokens ?? 0).toBeGreaterThan(0);
    // Spans: each summary is a chat span under its compaction span, with its cache reads.
    const chat = tracing.spans().filter((span) => span.name === `chat ${MODEL}`);
    expect(chat.length).toBe(summaries.length);
    expect(
      chat.some((span) => Number(span.attributes["gen_ai.usage.cache_read.input_tokens"]) > 0),
    ).toBe(true);
  });

  it("keeps Groq's requests valid with reasoning: drop (what compaction removed recallable), and the same loop with keep is refused", async () => {
    const { server, client } = await start("rejected");
    const session = new AgentSession({ contextLimit: 12_000 });
    const description = {
      model: "openai/gpt-oss-120b",
      tools: [READ_TOOL],
      reasoning: "drop" as const,
    };
    // Five turns of two reads: the fifth goes above the default's threshold (0.72).
    for (let turn = 0; turn < 5; turn += 1)
      await runTurn(session, client, description, `Review batch ${turn}.`);
    expect(server.refusals).toEqual([]);
    expect(session.messages.length).toBeGreaterThan(10);
    // Recall: the handle a placeholder or a notice names brings back the original.
    const handle = JSON.stringify(session.messages).match(/\[recall (r[0-9a-z-]+)\]/)?.[1];
    expect(handle).toBeDefined();
    const answer = await answerRecallToolCall(session, {
      id: "call_r",
      function: { name: RECALL_CHAT_TOOL.function.name, arguments: JSON.stringify({ handle }) },
    });
    expect(answer).toMatchObject({ tool_use_id: "call_r" });
    expect(JSON.stringify(answer)).toContain("line of code");

    const kept = new AgentSession({ contextLimit: 12_000 });
    const keep = { ...description, reasoning: "keep" as const };
    await expect(runTurn(kept, client, keep, "Review.")).rejects.toThrow(
      "property 'reasoning_content' is unsupported",
    );
  });

  it("is refused on DeepSeek when the reasoning is dropped: the default keep is what passes", async () => {
    const { client } = await start("required-for-tool-calls");
    const session = new AgentSession({ contextLimit: 12_000 });
    const drop = { model: MODEL, tools: [READ_TOOL], reasoning: "drop" as const };
    await expect(runTurn(session, client, drop, "Review.")).rejects.toThrow(
      "The `reasoning_content` in the thinking mode must be passed back to the API.",
    );
  });
});
