import { describe, expect, it } from "vitest";
import { history } from "../../test/support/session-history.js";
import { type Message, SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { createMessage } from "../core/message-factory.js";
import { estimateTokens } from "../core/message-memo.js";
import {
  cutLayout,
  firstFittingCut,
  innerSafeCuts,
  isKeptRequest,
  keptRequestEnd,
  recentToolUsesCut,
  remainderBudget,
  retentionCut,
} from "./cut-plan.js";

/** Turns of a request, one tool exchange and an answer each (4 messages a turn). */
const turns = history;

function systemMessageAfter(message: Message): Message {
  return createMessage({
    role: "user",
    sessionId: message.sessionId,
    turnId: message.turnId,
    content: [
      {
        type: "opaque",
        block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "note" } },
      },
    ],
  });
}

describe("cutLayout", () => {
  it("holds the safe cuts, the suffix sums and the latest request", () => {
    const conversation = turns(2);
    const layout = cutLayout(conversation);
    expect(layout.safe).toHaveLength(conversation.length + 1);
    expect(layout.suffix[0]).toBe(estimateTokens(conversation));
    expect(layout.suffix[conversation.length]).toBe(0);
    expect(layout.latestRequest).toBe(4);
    // Never between a tool use (index 1) and its result (index 2).
    expect(innerSafeCuts(layout)).toEqual([1, 3, 4, 5, 7]);
  });
});

describe("recentToolUsesCut", () => {
  it("is the latest candidate at or before the count-th newest tool use, undefined when fewer", () => {
    // Tool uses at 1, 5 and 9 (a turn is request, use, result, answer).
    const layout = cutLayout(turns(3));
    const cuts = innerSafeCuts(layout);
    expect(recentToolUsesCut(layout, 1, cuts)).toBe(9);
    expect(recentToolUsesCut(layout, 2, cuts)).toBe(5);
    expect(recentToolUsesCut(layout, 2, [1, 4])).toBe(4);
    expect(recentToolUsesCut(layout, 3, cuts)).toBe(1);
    expect(recentToolUsesCut(layout, 4, cuts)).toBeUndefined();
  });
});

describe("retentionCut", () => {
  it("is the latest candidate at or before the recent turns, undefined when none is", () => {
    const layout = cutLayout(turns(3));
    const cuts = innerSafeCuts(layout);
    expect(retentionCut(layout, 1, cuts)).toBe(8);
    expect(retentionCut(layout, 2, cuts)).toBe(4);
    expect(retentionCut(layout, 3, cuts)).toBeUndefined();
    expect(retentionCut(layout, 1, [1, 3])).toBe(3);
  });
});

describe("firstFittingCut", () => {
  it("takes the first cut that fits, else the last, else undefined", () => {
    expect(firstFittingCut([2, 4, 6], (cut) => cut >= 3)).toBe(4);
    expect(firstFittingCut([2, 4, 6], () => false)).toBe(6);
    expect(firstFittingCut([], () => true)).toBeUndefined();
  });

  it("asks no further once a cut fits", () => {
    const asked: number[] = [];
    firstFittingCut([1, 2, 3], (cut) => {
      asked.push(cut);
      return cut === 2;
    });
    expect(asked).toEqual([1, 2]);
  });
});

describe("remainderBudget", () => {
  it("is the target's budget less the reserve, and undefined without a target", () => {
    const context = { contextLimit: 1000, contextUsed: 300 };
    // 0.5 * 1000, less 100 beyond the 200 estimated tokens of the messages, less 50.
    expect(remainderBudget(0.5, context, 200, 50)).toBe(350);
    expect(remainderBudget(0.5, context, 200)).toBe(400);
    expect(remainderBudget(undefined, context, 200, 50)).toBeUndefined();
    expect(remainderBudget(0.5, { ...context, trigger: "manual" }, 200)).toBeUndefined();
  });
});

describe("keptRequestEnd", () => {
  it("keeps the request and the system messages right after it, never past the cut", () => {
    const base = turns(2);
    const conversation = [...base.slice(0, 5), systemMessageAfter(base[4]!), ...base.slice(5)];
    const latest = cutLayout(conversation).latestRequest;
    expect(latest).toBe(4);
    expect(keptRequestEnd(conversation, latest, 8)).toBe(6);
    expect(keptRequestEnd(conversation, latest, 5)).toBe(5);
    expect(isKeptRequest(conversation, latest, 8, 5)).toBe(true);
    expect(isKeptRequest(conversation, latest, 8, 6)).toBe(false);
    expect(isKeptRequest(conversation, latest, 8, 3)).toBe(false);
  });

  it("keeps nothing without a request, or with one at or after the cut", () => {
    const conversation = turns(2);
    expect(keptRequestEnd(conversation, -1, 5)).toBe(0);
    expect(isKeptRequest(conversation, -1, 5, 0)).toBe(false);
    expect(keptRequestEnd(conversation, 4, 4)).toBe(4);
    expect(isKeptRequest(conversation, 4, 4, 4)).toBe(false);
  });
});
