import { describe, expect, it } from "vitest";
import { AgentSession } from "../session/agent-session.js";
import { ConversationBuilder } from "../testing/builders.js";
import { answerRecall } from "./recall-tool.js";

describe("answerRecall pages", () => {
  it("bounds a recall of a trim notice's handle to an eighth of the window, page by page", async () => {
    const session = new AgentSession({ contextLimit: 8000, compactor: false });
    const builder = new ConversationBuilder();
    for (let turn = 0; turn < 30; turn += 1)
      builder
        .user(`request ${turn}`)
        .toolCall({ name: "read", result: `${turn} `.repeat(300) })
        .assistant(`answer ${turn}`);
    session.append(...builder.build());
    session.recordUsage({ inputTokens: 7900 });
    const report = await session.maybeCompact();
    expect(report.trimmed?.length).toBeGreaterThan(0);
    const notice = JSON.stringify(session.messages[0]?.content);
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(notice)![1]!;
    const first = await answerRecall(session, { id: "c1", input: { handle } });
    expect((first as { is_error?: boolean }).is_error).toBeUndefined();
    const text = String(first.content);
    expect(text.length).toBeLessThanOrEqual(4 * 1000);
    expect(text).toContain(`"page": 2`);
    const second = await answerRecall(session, { id: "c2", input: { handle, page: 2 } });
    expect(String(second.content)).toContain(`page 2 of`);
    const past = await answerRecall(session, { id: "c3", input: { handle, page: 999 } });
    expect((past as { is_error?: boolean }).is_error).toBe(true);
    expect(String(past.content)).toMatch(/page/);
  });
});
