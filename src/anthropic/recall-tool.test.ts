import { describe, expect, it } from "vitest";
import { AgentSession } from "../session/agent-session.js";
import { answerRecall, RECALL_TOOL } from "./recall-tool.js";

async function compactedSession(): Promise<{ session: AgentSession; handle: string }> {
  const session = new AgentSession({ contextLimit: 100_000 });
  for (let turn = 1; turn <= 4; turn += 1) {
    session.addUserText(`request ${turn}`);
    session.addAssistant([
      { type: "tool_use", id: `t${turn}`, name: "read", input: { path: `f${turn}.ts` } },
    ]);
    session.addToolResults([
      { type: "tool_result", toolUseId: `t${turn}`, content: `body of f${turn}.ts `.repeat(100) },
    ]);
  }
  await session.forceCompact();
  const text = JSON.stringify(session.messages);
  const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)![1]!;
  return { session, handle };
}

describe("the recall tool", () => {
  it("is a tool definition the model can call", () => {
    expect(RECALL_TOOL).toMatchObject({
      name: "recall_compacted",
      input_schema: { type: "object", required: ["handle"] },
    });
  });

  it("answers a call with the original, byte for byte, as the tool result", async () => {
    const { session, handle } = await compactedSession();
    const result = await answerRecall(session, { id: "toolu_r", input: { handle } });
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_r" });
    expect(String((result as { content: string }).content)).toContain(
      "body of f1.ts ".repeat(100).trim(),
    );
  });

  it("answers a bad handle with an error result that says why", async () => {
    const { session } = await compactedSession();
    const result = await answerRecall(session, { id: "toolu_r", input: { handle: "r999-0000" } });
    expect(result).toMatchObject({ is_error: true });
    expect(String((result as { content: string }).content)).toMatch(
      /another session|nothing is archived/,
    );
  });
});
