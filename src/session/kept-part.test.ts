import { describe, expect, it } from "vitest";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { REDACTION_NOTICE, ThresholdCompactor } from "../compactors/threshold-compactor.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";
import type { CompactionEvent } from "./events.js";

/** One user request answered by `calls` tool exchanges of `size` characters each. */
function oneLongTurn(calls: number, size = 800): Message[] {
  const builder = new ConversationBuilder().user("Migrate every module; never edit generated/");
  for (let call = 0; call < calls; call += 1)
    builder.toolCall({
      name: "edit",
      input: { file: `m${call}.ts` },
      result: `r${call} `.repeat(size / 4),
    });
  return builder.build();
}

/** Several turns of one exchange each. */
function turns(count: number, size = 800): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 0; turn < count; turn += 1)
    builder
      .user(`request ${turn}`)
      .toolCall({
        name: "read",
        input: { path: `f${turn}.ts` },
        result: `t${turn} `.repeat(size / 4),
      })
      .assistant(`answer ${turn}`);
  return builder.build();
}

const resultTexts = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === "tool_result" ? [String(block.content)] : [],
    ),
  );

describe("what a compactor keeps, the session keeps", () => {
  it("the default keeps the newest 10% of the window whole, masking and dropping only before it", async () => {
    const session = new AgentSession({ contextLimit: 20_000 });
    session.append(...oneLongTurn(80));
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    const kept = resultTexts(session.messages).filter((text) => !text.startsWith(REDACTION_NOTICE));
    const keptTokens = kept.reduce((sum, text) => sum + text.length / 4, 0);
    expect(keptTokens).toBeGreaterThanOrEqual(0.1 * 20_000 * 0.8);
    expect(resultTexts(session.messages).at(-1)).toBe(`r79 `.repeat(200));
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("a follow-up trim leaves the turns the compactor keeps when removing them cannot bring the context under its trigger", async () => {
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 10_000,
      compactor: { type: "threshold", config: { toolCompaction: "redact" } },
      onEvent: (event) => events.push(event),
    });
    session.append(...turns(6, 400));
    // Most of the context is the system prompt and tools: above the trigger on its own.
    session.recordUsage({ inputTokens: 9000 });
    const before = session.messages.length;
    await session.maybeCompact();
    expect(session.messages.length).toBeGreaterThanOrEqual(before - 3 * 3);
    expect(JSON.stringify(session.messages)).toContain("request 5");
    expect(JSON.stringify(session.messages)).toContain("request 3");
    const warnings = events.filter((event) => event.type === "context_window_warning");
    expect(warnings).toEqual([
      expect.objectContaining({
        problem: expect.objectContaining({ kind: "overhead_above_trigger" }),
      }),
    ]);
    session.addUserText("one more request");
    session.addAssistant([{ type: "text", text: "done" }]);
    session.recordUsage({ inputTokens: 9100 });
    await session.maybeCompact();
    expect(events.filter((event) => event.type === "context_window_warning")).toHaveLength(1);
  });

  it("the follow-up trim keeps the compactor's recent turns when it only needs to reach the target", async () => {
    const session = new AgentSession({
      contextLimit: 20_000,
      compactor: new ThresholdCompactor({
        threshold: 0.5,
        targetUtilization: 0.1,
        toolCompaction: "redact",
        keepRecentTurns: 3,
      }),
    });
    session.append(...turns(12, 2400));
    await session.maybeCompact();
    const text = JSON.stringify(session.messages);
    for (const turn of [9, 10, 11]) expect(text).toContain(`request ${turn}`);
    expect(resultTexts(session.messages).slice(-3)).toEqual(
      [9, 10, 11].map((turn) => `t${turn} `.repeat(600)),
    );
  });

  it("still trims into what the compactor keeps when the next request would not fit the window", async () => {
    const session = new AgentSession({
      contextLimit: 10_000,
      compactor: new ThresholdCompactor({
        threshold: 0.5,
        keepRecentTurns: 3,
        toolCompaction: "redact",
      }),
    });
    session.append(...turns(3, 16_000));
    await session.maybeCompact();
    expect(session.contextUsed).toBeLessThanOrEqual(10_000);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("LLMCompactor folds inside one long turn by default, keeping the request and the newest tool uses", async () => {
    const client = new MockLlmClient();
    const session = new AgentSession({
      contextLimit: 20_000,
      compactor: false,
      llmCompactor: new LLMCompactor(client),
    });
    session.append(...oneLongTurn(80));
    const before = estimateTokens(session.messages);
    const report = await session.maybeCompact();
    expect(client.callCount).toBe(1);
    expect(report.compacted).toBe(true);
    expect(estimateTokens(session.messages)).toBeLessThan(before / 2);
    expect(JSON.stringify(session.messages)).toContain(
      "Migrate every module; never edit generated/",
    );
    const results = resultTexts(session.messages);
    expect(results.length).toBeGreaterThanOrEqual(8);
    expect(results.at(-1)).toBe(`r79 `.repeat(200));
    expect(validateConversation(session.messages)).toEqual([]);
  });
});
