import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { AgentSession } from "../index.js";
import { chatCompletionsRequest } from "./request.js";
import {
  answerCompactToolCall,
  answerRecallToolCall,
  COMPACT_CHAT_TOOL,
  RECALL_CHAT_TOOL,
} from "./tools.js";

const call = (name: string, args: string) => ({
  id: "call_1",
  function: { name, arguments: args },
});

describe("the recall and compact function tools", () => {
  it("are Chat Completions function tools", () => {
    expect(RECALL_CHAT_TOOL).toMatchObject({
      type: "function",
      function: { name: "recall_compacted", parameters: { required: ["handle"] } },
    });
    expect(COMPACT_CHAT_TOOL.function.name).toBe("compact_context");
  });

  it("schedules a compaction with the notes, or refuses bad arguments and schedules nothing", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    const requests: unknown[] = [];
    session.requestCompaction = (options) => requests.push(options);
    expect(answerCompactToolCall(session, call("compact_context", "not json"))).toEqual({
      type: "tool_result",
      tool_use_id: "call_1",
      content: "The arguments must be a JSON object. No compaction was scheduled.",
      is_error: true,
    });
    expect(requests).toEqual([]);
    const answer = answerCompactToolCall(session, call("compact_context", '{"notes":"keep a.ts"}'));
    expect(answer).toMatchObject({ tool_use_id: "call_1" });
    expect(requests).toEqual([{ instructions: "keep a.ts" }]);
  });

  it("answers a recall with an error result for an unknown handle or bad arguments", async () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    const unknown = await answerRecallToolCall(
      session,
      call("recall_compacted", '{"handle":"r1-0000"}'),
    );
    expect(unknown).toMatchObject({ tool_use_id: "call_1", is_error: true });
    const bad = await answerRecallToolCall(session, call("recall_compacted", "{"));
    expect(bad).toMatchObject({ is_error: true, content: "The arguments must be a JSON object." });
  });
});

describe("chatCompletionsRequest", () => {
  it("puts the system prompt first, the session's messages after it, and copies the tools", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    session.addUserText("hi");
    const tools = [{ type: "function" as const, function: { name: "read" } }];
    const body = chatCompletionsRequest(
      { model: "m", system: "Be brief.", tools },
      session.messages,
    );
    expect(body).toEqual({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      tools,
    });
    expect(body.tools).not.toBe(tools);
    const developer = chatCompletionsRequest(
      { model: "m", system: { role: "developer", content: "Be brief." } },
      session.messages,
    );
    expect(developer.messages[0]).toEqual({ role: "developer", content: "Be brief." });
    expect(developer).not.toHaveProperty("tools");
  });

  it("refuses a bad description, naming the field", () => {
    expect(() => chatCompletionsRequest({ model: "" }, [])).toThrow(ValidationError);
    expect(() =>
      chatCompletionsRequest({ model: "m", system: { role: "user", content: "x" } as never }, []),
    ).toThrow("system");
    expect(() => chatCompletionsRequest({ model: "m", temperature: 0 } as never, [])).toThrow(
      ValidationError,
    );
  });
});
