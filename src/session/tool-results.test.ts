import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { AgentSession } from "./agent-session.js";

function sessionAwaitingTools(...ids: string[]): AgentSession {
  const session = new AgentSession({ contextLimit: 100_000 });
  session.addUserText("list the files");
  session.addAssistant(
    ids.map((id) => ({ type: "tool_use" as const, id, name: "ls", input: { path: "." } })),
  );
  return session;
}

describe("addToolResults: one block shape at the boundary", () => {
  it("takes the library's shape with isError optional (false by default)", () => {
    const session = sessionAwaitingTools("toolu_1");
    const message = session.addToolResults([
      { type: "tool_result", toolUseId: "toolu_1", content: "a.ts b.ts" },
    ]);
    expect(message.content).toEqual([
      { type: "tool_result", toolUseId: "toolu_1", content: "a.ts b.ts", isError: false },
    ]);
  });

  it("takes the Anthropic SDK's tool_result param as the app built it for the SDK", () => {
    const session = sessionAwaitingTools("toolu_1", "toolu_2");
    const message = session.addToolResults([
      { type: "tool_result", tool_use_id: "toolu_1", content: "a.ts", is_error: false },
      {
        type: "tool_result",
        tool_use_id: "toolu_2",
        content: [{ type: "text", text: "denied" }],
        is_error: true,
        compactSummary: "ls: denied",
      },
    ]);
    expect(message.content).toEqual([
      { type: "tool_result", toolUseId: "toolu_1", content: "a.ts", isError: false },
      {
        type: "tool_result",
        toolUseId: "toolu_2",
        content: [{ type: "text", text: "denied" }],
        isError: true,
        compactSummary: "ls: denied",
      },
    ]);
    expect(session.compactSummaries.get("toolu_2")).toBe("ls: denied");
  });

  it("refuses a result that answers no tool_use of the previous assistant message, naming the id", () => {
    const session = sessionAwaitingTools("toolu_1");
    const attempt = () =>
      session.addToolResults([{ type: "tool_result", toolUseId: "toolu_l", content: "typo" }]);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/"toolu_l" answers no tool_use.*toolu_1/);
    expect(session.messages).toHaveLength(2);
  });

  it("refuses results when the last message is not an assistant message with tool uses", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("hello");
    expect(() =>
      session.addToolResults([{ type: "tool_result", toolUseId: "toolu_1", content: "x" }]),
    ).toThrow(/answers no tool_use.*none/);
  });

  it("refuses two results for one tool_use", () => {
    const session = sessionAwaitingTools("toolu_1");
    expect(() =>
      session.addToolResults([
        { type: "tool_result", toolUseId: "toolu_1", content: "x" },
        { type: "tool_result", tool_use_id: "toolu_1", content: "y" },
      ]),
    ).toThrow(/second result/);
  });

  it("names a stray key instead of a missing field", () => {
    const session = sessionAwaitingTools("toolu_1");
    const attempt = () =>
      session.addToolResults([
        { type: "tool_result", toolUseId: "toolu_1", content: "x", is_error: true } as never,
      ]);
    expect(attempt).toThrow(/is_error/);
  });
});
