import { describe, expect, it } from "vitest";
import { answerCompactToolCall } from "../../src/chat-completions/index.js";
import { AgentSession, ValidationError } from "../../src/index.js";
import {
  answerCompactFunctionCall,
  answerRecallFunctionCall,
  appendOpenAIResponse,
  toResponsesInput,
} from "../../src/openai/index.js";

// The compact and recall tools' answers take the call as the model wrote it (a server's parse).

describe("answering the compact and recall tools", () => {
  it("refuses a call without a string id before scheduling anything", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("go");
    const call = { call_id: 7, arguments: "{}" } as unknown as {
      call_id: string;
      arguments: string;
    };
    expect(() => answerCompactFunctionCall(session, call)).toThrow(ValidationError);
    const chat = {
      id: null,
      type: "function",
      function: { name: "compact_context", arguments: "{}" },
    };
    expect(() => answerCompactToolCall(session, chat as never)).toThrow(ValidationError);
    expect(session.compactionRequested).toBe(false);
  });

  it("does not echo a handle of any length back into the context", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    const result = await answerRecallFunctionCall(session, {
      call_id: "c1",
      arguments: JSON.stringify({ handle: "r".repeat(200_000) }),
    });
    expect(JSON.stringify(result)).toContain("is not a recall handle");
    expect(JSON.stringify(result).length).toBeLessThan(1000);
  });
});

describe("appendOpenAIResponse", () => {
  it("refuses an output item of the client's side, appending nothing", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("go");
    const before = session.messages.length;
    const response = {
      output: [
        { type: "function_call", call_id: "c0", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "c0", output: "done" },
      ],
    };
    expect(() => appendOpenAIResponse(session, response as never)).toThrow(
      "output[1].type: must be an item the model makes, not function_call_output",
    );
    expect(session.messages).toHaveLength(before);
  });

  it("keeps an output item's field named __proto__ as its own", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("search");
    const output = JSON.parse(
      '[{"type":"web_search_call","id":"ws_1","status":"completed","__proto__":{"action":{"type":"search","query":"q"}}},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"found","annotations":[]}]}]',
    );
    appendOpenAIResponse(session, { output });
    const sent = toResponsesInput(session.messages);
    expect(Object.hasOwn(sent[1]!, "__proto__")).toBe(true);
  });
});
