import { describe, expect, it } from "vitest";
import { compactAnthropicMessages } from "../anthropic/compact-messages.js";
import { toAnthropicMessages } from "../anthropic/request.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/builders.js";
import { AgentSession } from "./agent-session.js";

/** 20 turns of a read (4,000 characters of output) and a reply, then the latest request. */
function twentyTurns(): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 0; turn < 20; turn += 1)
    builder
      .user(`request ${turn} ${"r".repeat(2000)}`)
      .toolCall({ name: "read", input: { path: `f${turn}` }, result: "x".repeat(4000) })
      .assistant(`done ${turn}`);
  return builder.user("latest").build();
}

const WINDOW = 200_000;

/** A session of {@link twentyTurns} without a compactor, compacted after a usage `overhead` above them. */
async function lastResortAfter(overhead: number) {
  const session = new AgentSession({
    contextLimit: WINDOW,
    compactor: false,
    logger: { warn: () => {} },
  });
  session.append(...twentyTurns());
  const before = session.messages.length;
  session.recordUsage({ inputTokens: overhead + estimateTokens(session.messages) });
  return { session, before, report: await session.maybeCompact() };
}

// A usage of ten times the estimate (a gateway summing a loop's steps) puts the system prompt
// and tools alone over the window: no compaction can make the request fit, and removing the
// messages down to the latest request, as the drop and the last resort did, only lost them.
describe("a usage whose overhead alone is over the window", () => {
  it("removes nothing through the default session: the report says the request is over the window", async () => {
    const session = new AgentSession({ contextLimit: WINDOW, logger: { warn: () => {} } });
    session.append(...twentyTurns());
    const before = session.messages.length;
    session.recordUsage({ inputTokens: 10 * estimateTokens(session.messages) + WINDOW });
    const report = await session.maybeCompact();
    expect(session.messages.length).toBe(before);
    expect(report.trimmed).toBeUndefined();
    expect(report.overWindow).toBe(true);
  });

  it("is not trimmed by the last resort alone (no compactor)", async () => {
    const { session, before, report } = await lastResortAfter(WINDOW);
    expect(report.trimmed).toBeUndefined();
    expect(session.messages.length).toBe(before);
    expect(report.overWindow).toBe(true);
  });

  it("is left whole by a one-call helper given that context", async () => {
    const input = toAnthropicMessages(twentyTurns());
    const { messages, compacted } = await compactAnthropicMessages(input, {
      contextLimit: WINDOW,
      contextUsed: 3 * WINDOW,
    });
    expect(compacted).toBe(false);
    expect(messages).toBe(input);
  });

  it("still trims when the overhead leaves room for the latest messages", async () => {
    const { session, before, report } = await lastResortAfter(0.9 * WINDOW);
    expect(report.trimmed?.length).toBeGreaterThan(0);
    expect(session.messages.length).toBeLessThan(before);
  });
});
