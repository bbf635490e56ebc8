import { describe, expect, it } from "vitest";
import { latestRequestIndex, latestSafeCut, safeCuts } from "../core/conversation-structure.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { ConversationBuilder } from "../testing/builders.js";
import { type FoldPlanOptions, foldedMessages, planFold } from "./fold-plan.js";

const OPTIONS: FoldPlanOptions = {
  keepRecentTurns: 2,
  maxSummaryTokens: 100,
  keepUserMessagesTokens: 100,
};

function turns(count: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= count; turn += 1)
    builder
      .user(`request ${turn}`)
      .toolCall({ name: "read", result: "x".repeat(400) })
      .assistant(`answer ${turn}`);
  return builder.build();
}

/** An old turn, then one long turn: its request, 20 tool exchanges, a pending tool use. */
function longTurn(): Message[] {
  const builder = new ConversationBuilder().user("old").assistant("old answer");
  builder.user("Migrate every table.");
  for (let call = 1; call <= 20; call += 1)
    builder.toolCall({ name: "migrate", input: { table: `t${call}` }, result: "ok ".repeat(200) });
  builder.assistant([{ type: "tool_use", id: "pending", name: "migrate", input: {} }]);
  return builder.build();
}

describe("planFold", () => {
  it("folds the turns older than keepRecentTurns, and nothing when all are recent", () => {
    const conversation = turns(4);
    expect(planFold(conversation, OPTIONS, {})).toEqual({ cut: 8 });
    expect(planFold(turns(2), OPTIONS, {})).toBeUndefined();
  });

  it("moves the cut back so the recent part never starts with a tool result", () => {
    // Turn 1's tool result and answer are hand-numbered as turn 2: the recent part starts there.
    const conversation = turns(3).map((message, index) =>
      index === 2 || index === 3 ? { ...message, turnId: { owner: "u", number: 2 } } : message,
    );
    const plan = planFold(conversation, { ...OPTIONS, keepRecentTurns: 2 }, {})!;
    expect(plan.cut).toBe(1);
    expect(safeCuts(conversation)[plan.cut]).toBe(true);
  });

  it("keeps the latest request verbatim when its turn is old", () => {
    const summary = { ...turns(1)[0]!, id: "summary", turnId: SUMMARY_TURN_ID };
    const [request, ...work] = longTurn().slice(2);
    // A previous fold left: summary, the request, then the turn's work (one turn only).
    const conversation = [summary, request!, ...work];
    expect(planFold(conversation, { ...OPTIONS, keepRecentTurns: 1 }, {})).toBeUndefined();
  });

  it("with a target out of reach, folds into the latest turn at safe points, keeping its request", () => {
    const conversation = longTurn();
    const total = estimateTokens(conversation);
    const plan = planFold(
      conversation,
      { ...OPTIONS, keepRecentTurns: 1, targetUtilization: 0.5 },
      { contextLimit: total, contextUsed: total },
    )!;
    expect(plan.keepIndex).toBe(2);
    expect(plan.cut).toBeGreaterThan(3);
    expect(safeCuts(conversation)[plan.cut]).toBe(true);
    // The pending tool use stays.
    expect(plan.cut).toBeLessThan(conversation.length);
    const folded = foldedMessages(conversation, plan);
    expect(folded).toHaveLength(plan.cut - 1);
    expect(folded).not.toContain(conversation[2]);
  });

  it("ignores the target without a context, and folds as far as it can in a manual compaction", () => {
    const conversation = longTurn();
    const options = { ...OPTIONS, keepRecentTurns: 1, targetUtilization: 0.5 };
    const total = estimateTokens(conversation);
    expect(planFold(conversation, options, {})).toEqual({ cut: 2 });
    const context = { contextLimit: total, contextUsed: total };
    const auto = planFold(conversation, options, { ...context, trigger: "auto" })!;
    const manual = planFold(conversation, options, { ...context, trigger: "manual" })!;
    // At least as strong as the automatic fold: up to the latest safe cut, the request kept.
    expect(manual.cut).toBeGreaterThanOrEqual(auto.cut);
    expect(manual.keepIndex).toBe(latestRequestIndex(conversation));
    const lastAssistant = conversation.findLastIndex((message) => message.role === "assistant");
    expect(manual.cut).toBe(latestSafeCut(safeCuts(conversation), lastAssistant));
  });
});
