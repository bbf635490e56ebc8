import { describe, expect, it } from "vitest";
import { TRIM_NOTICE } from "../compactors/overflow-trim.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { AgentSession } from "./agent-session.js";
import type { CompactionEvent } from "./events.js";

function oneLongTurn(calls: number): Message[] {
  const builder = new ConversationBuilder().user("Migrate every module; never edit generated/");
  for (let call = 0; call < calls; call += 1) {
    builder.toolCall({ name: "edit", input: { file: `m${call}.ts` }, result: "r".repeat(800) });
  }
  return builder.build();
}

describe("AgentSession trimOnOverflow", () => {
  it("is on by default: an overflow no compactor could fix is trimmed, the removed messages handed over", async () => {
    const session = new AgentSession({ contextLimit: 1000, compactor: false });
    const conversation = oneLongTurn(30);
    session.append(...conversation);
    const report = await session.maybeCompact();
    expect(report.trimmed?.length).toBeGreaterThan(0);
    expect(report.overWindow).toBe(false);
    expect(session.contextUsed).toBeLessThanOrEqual(1000);
    expect(report.trimmed!.length + session.messages.length - 1).toBe(conversation.length);
  });

  it("when off, never drops messages on its own: the report and a context_overflow event say so", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 1000,
      compactor: false,
      trimOnOverflow: false,
      onEvent: (event) => events.push(event),
    });
    session.append(...oneLongTurn(30));
    const before = session.messages.length;
    const report = await session.maybeCompact();
    expect(report.trimmed).toBeUndefined();
    expect(report.overWindow).toBe(true);
    expect(session.messages).toHaveLength(before);
    expect(events).toEqual([
      expect.objectContaining({
        type: "context_overflow",
        trigger: "auto",
        contextLimit: 1000,
        detail: expect.stringContaining("summarizer"),
      }),
    ]);
    const forced = await session.forceCompact();
    expect(forced.overWindow).toBe(true);
  });

  it("trims to the target when compaction leaves the context above the window, and hands the messages over", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 4000,
      compactor: { type: "threshold", config: { toolCompaction: "redact" } },
      trimOnOverflow: { targetUtilization: 0.5 },
      onEvent: (event) => events.push(event),
    });
    const conversation = oneLongTurn(60);
    session.append(...conversation);
    session.recordUsage({ inputTokens: estimateTokens(conversation) + 300 });
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(report.contextUsedAfter).toBeLessThanOrEqual(2000);
    expect(validateConversation(session.messages)).toEqual([]);
    const trimmed = events.find((event) => event.type === "context_trimmed");
    expect(trimmed).toMatchObject({ removed: report.trimmed });
    expect(report.trimmed!.length + session.messages.length - 1).toBe(conversation.length);
    expect(session.messages[0]?.content[0]).toMatchObject({ text: TRIM_NOTICE });
    expect(session.messages[1]).toEqual(conversation[0]);
  });

  it("refuses a bad setting naming it", () => {
    expect(
      () => new AgentSession({ contextLimit: 10, trimOnOverflow: { targetUtilization: 2 } }),
    ).toThrow(/trimOnOverflow/);
  });
});
