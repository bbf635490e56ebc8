import OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Item,
  ResponsesApiServer,
  type ResponsesScript,
  reasonedAnswer,
} from "../../test/support/openai-responses-server.js";
import { isSummaryTurn } from "../core/turn.js";
import {
  AgentSession,
  CompactionError,
  estimateTokens,
  LLMCompactor,
  ValidationError,
  validateConversation,
} from "../index.js";
import { ConversationBuilder } from "../testing/index.js";
import { OpenAILlmClient } from "./llm-client.js";
import { OpenAICompactor, type OpenAICompactorOptions } from "./openai-compactor.js";
import { appendOpenAIResponse } from "./response.js";
import { toResponsesInput } from "./responses-output.js";

const MODEL = "gpt-5.6-luna";

/** A reasoning model: two tool steps per user request (reasoning before each call), then an answer. */
const agent: ResponsesScript = (request, ids) => {
  const input = request.body["input"] as Item[];
  const sinceUser = input.length - input.findLastIndex((item) => item["role"] === "user");
  const step = input.slice(-sinceUser).filter((item) => item["type"] === "function_call").length;
  const reasoning = { type: "reasoning", id: ids("rs"), summary: [] };
  if (step >= 2) {
    return {
      output: [
        reasoning,
        {
          type: "message",
          id: ids("msg"),
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Done.", annotations: [] }],
        },
      ],
      cachedTokens: 100,
    };
  }
  const callId = ids("call");
  return {
    output: [
      reasoning,
      {
        type: "function_call",
        id: ids("fc"),
        call_id: callId,
        name: "read",
        arguments: JSON.stringify({ path: `f${step}.ts` }),
        status: "completed",
      },
    ],
    cachedTokens: 100,
  };
};

async function runTurn(session: AgentSession, client: OpenAI, request: string): Promise<void> {
  session.addUserText(request);
  for (;;) {
    await session.maybeCompact();
    expect(validateConversation(session.messages, { provider: "openai" })).toEqual([]);
    const response = await client.responses.create({
      model: MODEL,
      input: toResponsesInput(session.messages),
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    appendOpenAIResponse(session, response);
    const calls = response.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) return;
    session.addToolResults(
      calls.map((call) => ({
        type: "tool_result" as const,
        toolUseId: call.call_id,
        content: `${call.arguments}\n${"line of code\n".repeat(300)}`,
      })),
    );
  }
}

describe("OpenAICompactor through the openai SDK and the loopback Responses API", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ResponsesApiServer.start(agent);
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  beforeEach(() => {
    server.failCompact = undefined;
    server.script = agent;
  });
  afterAll(() => server.close());

  it("compacts older turns into the opaque item first, recent items after it unchanged, every request accepted", async () => {
    const compactor = new OpenAICompactor({
      client,
      model: MODEL,
      keepRecentTurns: 1,
      instructions: "You are a coding agent.",
    });
    const session = new AgentSession({
      contextLimit: 6_000,
      compactor: false,
      llmCompactor: compactor,
    });
    const start = server.requests.length;
    for (const task of ["Read f0", "Read f1", "Read f2", "Read f3"])
      await runTurn(session, client, task);
    const requests = server.requests.slice(start);
    const compactions = requests.filter((request) => request.path.endsWith("/responses/compact"));
    expect(server.refusals).toEqual([]);
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]!.body["instructions"]).toBe("You are a coding agent.");
    // The request right after a compaction: the endpoint's output, then the recent items as they were.
    const at = requests.indexOf(compactions[0]!);
    const before = requests[at - 1]!.body["input"] as Item[];
    const after = requests[at + 1]!.body["input"] as Item[];
    const compactionIndex = after.findIndex((item) => item["type"] === "compaction");
    expect(after.slice(0, compactionIndex).every((item) => item["role"] === "user")).toBe(true);
    const recent = after.slice(compactionIndex + 1);
    const lastUser = before.findLastIndex((item) => item["role"] === "user");
    expect(recent.slice(0, before.length - lastUser)).toEqual(before.slice(lastUser));
    expect(session.compactionUsage.cacheReadInputTokens ?? 0).toBeGreaterThan(0);
    expect(session.messages[0]?.turnId).toEqual({ owner: "u", number: 0 });
    expect(session.messages[0]?.generated).toBe("summary");
  });

  it("leaves the conversation as it was when the endpoint fails, and validates its options", async () => {
    const compactor = new OpenAICompactor({ client, model: MODEL, keepRecentTurns: 1 });
    const session = new AgentSession({
      contextLimit: 100_000,
      compactor: false,
      llmCompactor: compactor,
    });
    await runTurn(session, client, "Read f0");
    await runTurn(session, client, "Read f1");
    server.failCompact = 500;
    const before = session.messages;
    await expect(session.forceCompact()).rejects.toSatisfy(
      (error: unknown) => CompactionError.isInstance(error) && error.code === "llm_error",
    );
    expect(session.messages).toEqual(before);
    expect(() => new OpenAICompactor({ client: {} as never, model: "", threshold: 2 })).toThrow(
      ValidationError,
    );
    // A timer above 2^31 - 1 ms would fire at once in Node: refused, naming the field.
    expect(() => new OpenAICompactor({ client, model: MODEL, timeoutMs: 2 ** 31 })).toThrow(
      /timeoutMs: must be at most 2147483647/,
    );
  });

  it("summarizes through OpenAILlmClient, instructions as the system prompt", async () => {
    server.script = () => ({
      output: [
        {
          type: "message",
          id: "msg_s",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Summary of f0.", annotations: [] }],
        },
      ],
    });
    const summarizer = new OpenAILlmClient({ client, model: MODEL, maxOutputTokens: 300 });
    const text = await summarizer.complete({ prompt: "Summarize", system: "Be terse." });
    expect(text).toBe("Summary of f0.");
    const last = server.requests.at(-1)!.body;
    expect(last).toMatchObject({
      model: MODEL,
      input: "Summarize",
      instructions: "Be terse.",
      // The summary's 300, and as much again for the model's reasoning, which the field counts.
      max_output_tokens: 600,
    });
    const thinkingOff = new OpenAILlmClient({
      client,
      model: MODEL,
      maxOutputTokens: 300,
      params: { reasoning: { effort: "none" } },
    });
    await thinkingOff.complete({ prompt: "Summarize", maxTokens: 200 });
    expect(server.requests.at(-1)!.body).toMatchObject({ max_output_tokens: 200 });
    const compactor = new LLMCompactor(summarizer, { keepRecentTurns: 1 });
    expect(compactor.isAsync).toBe(true);
  });

  it("OpenAILlmClient refuses an incomplete response: its text is no summary", async () => {
    server.script = () => ({
      status: "incomplete",
      output: [
        {
          type: "message",
          id: "msg_s",
          role: "assistant",
          status: "incomplete",
          content: [{ type: "output_text", text: "Summary of f", annotations: [] }],
        },
      ],
    });
    const summarizer = new OpenAILlmClient({ client, model: MODEL, maxOutputTokens: 300 });
    await expect(summarizer.complete({ prompt: "Summarize" })).rejects.toThrow(
      'stopped with "max_output_tokens"',
    );
  });

  it("keeps the input's reasoning verbatim through a session round trip", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("x");
    const output = [
      { type: "reasoning", id: "rs_x", summary: [], encrypted_content: "E" },
      {
        type: "function_call",
        id: "fc_x",
        call_id: "call_x",
        name: "read",
        arguments: '{ "a": 1 }',
      },
    ];
    appendOpenAIResponse(session, { output } as never);
    session.addToolResults([{ type: "tool_result", toolUseId: "call_x", content: "r" }]);
    const input = toResponsesInput(session.messages) as ResponseInputItem[];
    expect(input.slice(1, 3)).toEqual(output);
  });
});

/** A long task: one user request answered in `steps` tool calls (reasoning before each), then an answer. */
const longTask =
  (steps: number): ResponsesScript =>
  (request, ids) => {
    const input = request.body["input"] as Item[];
    const calls = input.filter((item) => item["type"] === "function_call").length;
    // After a compaction the older calls are in the compaction item: count the steps by the path.
    const last = input.findLast((item) => item["type"] === "function_call");
    const step = last === undefined ? 0 : Number(/f(\d+)/.exec(String(last["arguments"]))?.[1]) + 1;
    if (step >= steps || calls > steps) return { output: reasonedAnswer(ids, "Done.") };
    return {
      output: [
        { type: "reasoning", id: ids("rs"), summary: [] },
        {
          type: "function_call",
          id: ids("fc"),
          call_id: ids("call"),
          name: "read",
          arguments: JSON.stringify({ path: `f${step}.ts` }),
          status: "completed",
        },
      ],
    };
  };

describe("OpenAICompactor inside one long turn, and what it is told back", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ResponsesApiServer.start(longTask(40));
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  beforeEach(() => {
    server.compactUsage = undefined;
  });
  afterAll(() => server.close());

  /** Runs the 40-step task; the compactions' requests, the trims, and the session. */
  async function runLongTask(options: Partial<OpenAICompactorOptions>, contextLimit: number) {
    const session = new AgentSession({
      contextLimit,
      compactor: false,
      llmCompactor: new OpenAICompactor({ client, model: MODEL, ...options }),
    });
    const trims: unknown[] = [];
    session.on((event) => {
      if (event.type === "context_trimmed") trims.push(event);
    });
    const start = server.requests.length;
    await runTurn(session, client, "Read every file");
    const requests = server.requests.slice(start);
    return {
      session,
      trims,
      compactions: requests.filter((request) => request.path.endsWith("/responses/compact")),
    };
  }

  it("folds the older steps of one request, keeping the newest tool uses whole", async () => {
    const { session, trims, compactions } = await runLongTask({}, 40_000);
    expect(server.refusals).toEqual([]);
    expect(compactions.length).toBeGreaterThan(0);
    expect(trims).toEqual([]);
    // The request stays word for word, right after the compaction item.
    const input = toResponsesInput(session.messages) as unknown as Item[];
    const item = input.findIndex((each) => each["type"] === "compaction");
    expect(input[item + 1]).toMatchObject({
      role: "user",
      content: [{ type: "input_text", text: "Read every file" }],
    });
    // The newest tool uses are all there, each after its reasoning, with its output.
    const calls = input.filter((each) => each["type"] === "function_call");
    expect(calls.length).toBeGreaterThanOrEqual(10);
    expect(calls.at(-1)?.["arguments"]).toBe(JSON.stringify({ path: "f39.ts" }));
    for (const call of calls) {
      expect(input[input.indexOf(call) - 1]?.["type"]).toBe("reasoning");
    }
  });

  it("keeps whole turns only with keepRecentToolUses: false, while the kept part stays under the threshold", async () => {
    const { session, compactions } = await runLongTask({}, 1_000_000);
    expect(compactions).toEqual([]);
    const manual = { trigger: "manual" } as const;
    const byTurns = new OpenAICompactor({ client, model: MODEL, keepRecentToolUses: false });
    const byTurnsOutput = await byTurns.compactAsync(session.messages, new Map(), manual);
    expect(byTurnsOutput.conversation).toEqual(session.messages);
    expect(byTurnsOutput.skipReason).toMatch(/nothing older/);
    const bySteps = new OpenAICompactor({ client, model: MODEL, keepRecentToolUses: 5 });
    const { conversation, result } = await bySteps.compactAsync(
      session.messages,
      new Map(),
      manual,
    );
    expect(result.turnsCompacted).toBe(1);
    const calls = conversation.flatMap((message) =>
      message.content.filter((block) => block.type === "tool_use"),
    );
    expect(calls.map((call) => call.input["path"])).toEqual([
      "f35.ts",
      "f36.ts",
      "f37.ts",
      "f38.ts",
      "f39.ts",
    ]);
  });

  it("cuts past the newest tool uses when keeping them would stay above the threshold", async () => {
    const { session, trims, compactions } = await runLongTask({ keepRecentToolUses: 30 }, 40_000);
    expect(server.refusals).toEqual([]);
    expect(compactions.length).toBeGreaterThan(0);
    expect(trims).toEqual([]);
    expect(session.contextUsed).toBeLessThan(40_000 * 0.75);
  });

  it("keeps fewer of the newest tool uses when they would take more than halfway to the threshold", async () => {
    // 14 reads of ~6.5% of the window each: the 10 newest (65%) stayed whole, under the
    // threshold, so the context was back above it after a step or two.
    const builder = new ConversationBuilder().user("Read every file");
    for (let step = 0; step < 14; step += 1)
      builder.toolCall({
        name: "read",
        input: { path: `f${step}.ts` },
        result: "x".repeat(26_000),
      });
    const conversation = builder.build();
    const contextLimit = 100_000;
    const compactor = new OpenAICompactor({ client, model: MODEL, targetUtilization: 0.2 });
    const context = { contextLimit, contextUsed: estimateTokens(conversation) };
    expect(context.contextUsed / contextLimit).toBeGreaterThan(0.75);
    const output = await compactor.compactAsync(conversation, new Map(), context);
    expect(server.refusals).toEqual([]);
    const kept = output.conversation.filter((message) => !isSummaryTurn(message.turnId));
    const calls = kept.flatMap((message) =>
      message.content.filter((block) => block.type === "tool_use"),
    );
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThan(10);
    expect(calls.at(-1)?.input["path"]).toBe("f13.ts");
    // Halfway from the target (0.2) to the threshold (0.75).
    expect(estimateTokens(kept) / contextLimit).toBeLessThanOrEqual(0.475 + 0.01);
  });

  it("fails, never rejecting maybeCompact, when the endpoint reports a count that is not a whole number ≥ 0", async () => {
    for (const bad of [2 ** 60, -5, 1.5]) {
      const session = new AgentSession({
        contextLimit: 40_000,
        compactor: false,
        pricing: { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadMultiplier: 0.1 },
        llmCompactor: new OpenAICompactor({ client, model: MODEL, keepRecentTurns: 1 }),
      });
      for (const text of ["Read f0", "Read f1"]) {
        session.addUserText(text);
        session.addAssistant([{ type: "text", text: "Read." }]);
      }
      session.recordUsage({ inputTokens: 39_000 });
      server.compactUsage = { input_tokens: bad, output_tokens: 10 };
      const before = session.messages;
      const report = await session.maybeCompact();
      expect(report.compacted).toBe(false);
      expect(report.error?.code).toBe("llm_error");
      expect(report.error?.message).toMatch(/input_tokens: must be a whole number|0 or more/);
      expect(session.messages).toBe(before);
      expect(session.compactionUsage.inputTokens).toBe(0);
    }
    server.compactUsage = undefined;
  });
});

describe("OpenAICompactor's cut", () => {
  it("never parts a reasoning item from the item after it, even across messages", async () => {
    const compact = async () => ({
      output: [{ type: "compaction", id: "cmp_1", encrypted_content: "E" }],
      usage: { input_tokens: 10, output_tokens: 2 },
    });
    const compactor = new OpenAICompactor({
      client: { responses: { compact } } as never,
      model: MODEL,
      keepRecentToolUses: 1,
    });
    const session = new AgentSession({ contextLimit: 100_000, compactor: false });
    const reasoning = (id: string) => ({
      type: "opaque" as const,
      block: { type: "reasoning", id, summary: [], encrypted_content: `E-${id}` },
    });
    const read = (id: string) => ({ type: "tool_use" as const, id, name: "read", input: {} });
    const result = (id: string) => ({ type: "tool_result" as const, toolUseId: id, content: "r" });
    session.addUserText("go");
    session.addAssistant([reasoning("rs_a"), read("c1")]);
    session.addToolResults([result("c1")]);
    // The model's reasoning and its call, appended as two messages.
    session.addAssistant([reasoning("rs_b")]);
    session.addAssistant([read("c2")]);
    session.addToolResults([result("c2")]);
    const { conversation } = await compactor.compactAsync(session.messages, new Map(), {
      trigger: "manual",
    });
    const kept = conversation.slice(conversation.findIndex((message) => message.turnId.number > 0));
    expect(kept.map((message) => message.content[0]?.type)).toEqual([
      "text",
      "opaque",
      "tool_use",
      "tool_result",
    ]);
    expect(kept[1]).toBe(session.messages[3]);
  });
});
