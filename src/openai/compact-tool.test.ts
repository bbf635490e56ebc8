import { describe, expect, it } from "vitest";
import { COMPACT_TOOL_NAME } from "../core/compact-tool-call.js";
import { AgentSession } from "../session/agent-session.js";
import { answerCompactFunctionCall, COMPACT_FUNCTION_TOOL } from "./compact-tool.js";

describe("COMPACT_FUNCTION_TOOL (OpenAI Responses)", () => {
  it("is a function tool with the shared name, description and schema", () => {
    expect(COMPACT_FUNCTION_TOOL).toMatchObject({
      type: "function",
      name: COMPACT_TOOL_NAME,
      strict: false,
      parameters: { type: "object", properties: { notes: { type: "string" } } },
    });
    expect(COMPACT_FUNCTION_TOOL.description).toContain("natural boundary");
  });

  it("schedules a compaction with the notes as the summarizer's instructions", async () => {
    const instructions: (string | undefined)[] = [];
    const session = new AgentSession({
      contextLimit: 10_000,
      beforeCompact: (context) => {
        instructions.push(context.instructions);
        return undefined;
      },
    });
    const result = answerCompactFunctionCall(session, {
      call_id: "call_1",
      arguments: JSON.stringify({ notes: "Keep the port number 8443." }),
    });
    expect(result).toEqual({
      type: "tool_result",
      tool_use_id: "call_1",
      content: expect.stringContaining("before your next request"),
    });
    expect(session.compactionRequested).toBe(true);
    session.addUserText("next");
    await session.maybeCompact();
    expect(session.compactionRequested).toBe(false);
    expect(instructions).toEqual(["Keep the port number 8443."]);
  });

  it("answers arguments that are not JSON, or notes that are not a string, with an error result", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    for (const args of ["{not json", '{"notes": 3}', 42 as unknown as string]) {
      expect(
        answerCompactFunctionCall(session, { call_id: "call_2", arguments: args }),
      ).toMatchObject({
        tool_use_id: "call_2",
        is_error: true,
      });
    }
    expect(session.compactionRequested).toBe(false);
    answerCompactFunctionCall(session, { call_id: "call_3", arguments: "" });
    expect(session.compactionRequested).toBe(true);
  });
});
