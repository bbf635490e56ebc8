import { describe, expect, it } from "vitest";
import { safeCuts } from "../core/conversation-structure.js";
import { exchangeIssues } from "../core/exchanges.js";
import type { ContentBlock, Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { ThresholdCompactor } from "./threshold-compactor.js";

/** A provider that numbers calls per step reuses ids: `call_0` in both turns. */
function reusedIds(oldInput: string, recentInput = `recent ${"x".repeat(4000)}`): Message[] {
  const big = "x".repeat(4000);
  const at = new Date(0);
  const message = (id: string, role: "user" | "assistant", turn: number, block: ContentBlock) =>
    ({
      id,
      sessionId: "s",
      role,
      turnId: { owner: "u", number: turn },
      createdAt: at,
      content: [block],
    }) as Message;
  // A turn: the request, one call (always `call_0`), its result, the reply; ids 0-3, then 4-7.
  const turn = (n: number, request: string, input: string, result: string, reply: string) => {
    const first = 4 * (n - 1);
    return [
      message(`${first}`, "user", n, { type: "text", text: request }),
      message(`${first + 1}`, "assistant", n, {
        type: "tool_use",
        id: "call_0",
        name: "write",
        input: { text: input },
      }),
      message(`${first + 2}`, "user", n, {
        type: "tool_result",
        toolUseId: "call_0",
        content: result,
        isError: false,
      }),
      message(`${first + 3}`, "assistant", n, { type: "text", text: reply }),
    ];
  };
  return [
    ...turn(1, "first request", oldInput, big, "found it"),
    ...turn(2, "second request", recentInput, "ok", "done"),
  ];
}

describe("a tool call id reused in a later turn", () => {
  it("pairs each result with the latest call before it: no cut between them", () => {
    expect(safeCuts(reusedIds("a"))).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it("removes the oldest messages without splitting an exchange", () => {
    const conversation = reusedIds("x".repeat(4000), "a");
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentTurns: 1,
      targetUtilization: 0.1,
      threshold: 0.5,
      dropOldest: true,
    });
    const contextUsed = estimateTokens(conversation);
    const { conversation: out } = compactor.compact(conversation, new Map(), {
      contextLimit: 2500,
      contextUsed,
    });
    expect(out.length).toBeLessThan(conversation.length);
    expect(exchangeIssues(out)).toEqual([]);
  });

  it("clears the input of the old call, not the recent one", () => {
    const conversation = reusedIds("x".repeat(4000));
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentTurns: 1,
      clearToolInputs: true,
    });
    const { conversation: out } = compactor.compact(conversation, new Map(), {
      contextLimit: 3000,
      contextUsed: 3000,
    });
    expect(out[1]).not.toBe(conversation[1]);
    expect(out[5]).toBe(conversation[5]);
    expect(out[2]!.content[0]).toMatchObject({ content: expect.stringContaining("redacted") });
  });
});
