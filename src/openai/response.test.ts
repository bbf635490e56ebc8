import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ResponsesApiServer,
  type ResponsesScript,
  reasonedAnswer,
} from "../../test/support/openai-responses-server.js";
import { AgentSession, ValidationError, validateConversation } from "../index.js";
import { appendOpenAIResponse } from "./response.js";
import { toResponsesInput } from "./responses-output.js";

const MODEL = "gpt-5.6-luna";

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error.issues.map((issue) => issue.path.join("."));
    throw error;
  }
  return [];
}

describe("appendOpenAIResponse's checks", () => {
  const session = () => {
    const made = new AgentSession({ contextLimit: 100_000 });
    made.addUserText("hello");
    return made;
  };

  it("refuses what is not a Responses API response, naming the field, and takes nothing of it", () => {
    const target = session();
    const anthropic = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "hi" }],
      usage: { input_tokens: 12, output_tokens: 3 },
    };
    expect(issuesOf(() => appendOpenAIResponse(target, anthropic as never))).toEqual(["output"]);
    expect(issuesOf(() => appendOpenAIResponse(target, null as never))).toEqual([""]);
    expect(issuesOf(() => appendOpenAIResponse(target, { output: [7] } as never))).toEqual([
      "output.0",
    ]);
    expect(
      issuesOf(() =>
        appendOpenAIResponse(target, {
          output: [{ type: "function_call", call_id: "", name: "read", arguments: "{}" }],
        } as never),
      ),
    ).toEqual(["output.0.call_id"]);
    expect(target.messages).toHaveLength(1);
    expect(target.contextUsed).toBeLessThan(12);
  });

  it("refuses a usage whose counts are not whole numbers ≥ 0 before appending anything", () => {
    const target = session();
    const output = [
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "hi", annotations: [] }],
      },
    ];
    for (const bad of [2 ** 60, -1, Number.NaN, 1.5]) {
      expect(
        issuesOf(() =>
          appendOpenAIResponse(target, { output, usage: { input_tokens: bad } } as never),
        ),
      ).toEqual(["usage.input_tokens"]);
    }
    expect(
      issuesOf(() =>
        appendOpenAIResponse(target, {
          output,
          usage: { input_tokens: 9, input_tokens_details: { cached_tokens: -3 } },
        } as never),
      ),
    ).toEqual(["usage.input_tokens_details.cached_tokens"]);
    expect(target.messages).toHaveLength(1);
    const { usage } = appendOpenAIResponse(target, {
      output,
      usage: { input_tokens: 9, input_tokens_details: { cached_tokens: 4 }, output_tokens: 2 },
    } as never);
    expect(usage).toEqual({ inputTokens: 5, cacheReadInputTokens: 4, outputTokens: 2 });
    expect(target.messages).toHaveLength(2);
  });
});

describe("an incomplete response through the openai SDK and the loopback Responses API", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  // The first request runs out of output tokens while reasoning; the next one answers.
  const script: ResponsesScript = (request, ids) =>
    (request.body["input"] as unknown[]).length === 1
      ? { status: "incomplete", output: [{ type: "reasoning", id: ids("rs"), summary: [] }] }
      : { output: reasonedAnswer(ids, "Done.") };
  beforeAll(async () => {
    server = await ResponsesApiServer.start(script);
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("never appends a lone reasoning item, so the next input is accepted", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Fix the test");
    const send = () =>
      client.responses.create({
        model: MODEL,
        input: toResponsesInput(session.messages),
        store: false,
        include: ["reasoning.encrypted_content"],
      });
    const incomplete = await send();
    expect(incomplete.status).toBe("incomplete");
    const appended = appendOpenAIResponse(session, incomplete);
    expect(appended.message).toBeUndefined();
    expect(appended.usage?.outputTokens).toBeGreaterThan(0);
    expect(session.messages).toHaveLength(1);
    session.addUserText("Go on, with a larger budget");
    expect(validateConversation(session.messages, { provider: "openai" })).toEqual([]);
    const answer = await send();
    expect(server.refusals).toEqual([]);
    appendOpenAIResponse(session, answer);
    // Reasoning that an item follows is kept, in place.
    expect(toResponsesInput(session.messages).map((item) => item.type)).toEqual([
      "message",
      "message",
      "reasoning",
      "message",
    ]);
  });
});

describe("a response read by the SDK's parse() and stream() helpers", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  // A call first, then an answer: both parsed by the SDK, which adds `parsed_arguments` to the
  // call and `parsed` to each part of the message (its ParsedResponse), fields no input takes.
  const script: ResponsesScript = (request, ids) =>
    (request.body["input"] as unknown[]).length === 1
      ? {
          output: [
            { type: "reasoning", id: ids("rs"), summary: [] },
            {
              type: "function_call",
              id: ids("fc"),
              call_id: ids("call"),
              name: "read",
              arguments: '{"path":"a.ts"}',
              status: "completed",
            },
          ],
        }
      : { output: reasonedAnswer(ids, "Done.") };
  beforeAll(async () => {
    server = await ResponsesApiServer.start(script);
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("appends the output as the API wrote it, so the next input is accepted", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read a.ts");
    const send = () =>
      client.responses.parse({
        model: MODEL,
        input: toResponsesInput(session.messages),
        store: false,
        include: ["reasoning.encrypted_content"],
      });
    const call = await send();
    expect(call.output[1]).toHaveProperty("parsed_arguments");
    appendOpenAIResponse(session, call);
    const callId = (call.output[1] as { call_id: string }).call_id;
    session.addToolResults([{ type: "tool_result", toolUseId: callId, content: "export {}" }]);
    const answer = await send();
    appendOpenAIResponse(session, answer);
    session.addUserText("Thanks");
    await client.responses.create({ model: MODEL, input: toResponsesInput(session.messages) });
    expect(server.refusals).toEqual([]);
    const sent = JSON.stringify(server.requests.map((request) => request.body["input"]));
    expect(sent).not.toMatch(/"parsed(_arguments)?":/);
    // The rest of each item is kept: its id, status and the part's annotations.
    expect(toResponsesInput(session.messages).slice(1, 3)).toMatchObject([
      { type: "reasoning" },
      { type: "function_call", id: (call.output[1] as { id: string }).id, status: "completed" },
    ]);
  });
});
