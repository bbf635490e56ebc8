import OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Item,
  ResponsesApiServer,
  type ResponsesScript,
} from "../../test/support/openai-responses-server.js";
import {
  AgentSession,
  CompactionError,
  LLMCompactor,
  ValidationError,
  validateConversation,
} from "../index.js";
import { OpenAILlmClient } from "./llm-client.js";
import { OpenAICompactor } from "./openai-compactor.js";
import { appendOpenAIResponse } from "./response.js";
import { toResponsesInput } from "./responses-output.js";

const MODEL = "gpt-5.6-luna";

/** A reasoning model: two tool steps per user request (reasoning before each call), then an answer. */
const agent: ResponsesScript = (request, ids) => {
  const input = request.body.input as Item[];
  const sinceUser = input.length - input.findLastIndex((item) => item.role === "user");
  const step = input.slice(-sinceUser).filter((item) => item.type === "function_call").length;
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
    expect(compactions[0]!.body.instructions).toBe("You are a coding agent.");
    // The request right after a compaction: the endpoint's output, then the recent items as they were.
    const at = requests.indexOf(compactions[0]!);
    const before = requests[at - 1]!.body.input as Item[];
    const after = requests[at + 1]!.body.input as Item[];
    const compactionIndex = after.findIndex((item) => item.type === "compaction");
    expect(after.slice(0, compactionIndex).every((item) => item.role === "user")).toBe(true);
    const recent = after.slice(compactionIndex + 1);
    const lastUser = before.findLastIndex((item) => item.role === "user");
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
      max_output_tokens: 300,
    });
    const compactor = new LLMCompactor(summarizer, { keepRecentTurns: 1 });
    expect(compactor.isAsync).toBe(true);
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
