import { describe, expect, it } from "vitest";
import { answerCompactToolCall } from "../../src/chat-completions/index.js";
import { AgentSession, ValidationError } from "../../src/index.js";
import { answerCompactFunctionCall, answerRecallFunctionCall } from "../../src/openai/index.js";

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
