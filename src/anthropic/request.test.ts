import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageParams } from "../../test/anthropic/arbitraries.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { SUMMARY_PREFIX } from "../core/summary-format.js";
import { ConversationBuilder, toolResultBlock, toolUseBlock } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { STRING_CONTENT_KEY } from "./blocks.js";
import { toAnthropicMessages } from "./request.js";
import { type FromAnthropicOptions, fromAnthropicMessages } from "./turns.js";

const FIXED = new Date("2026-01-01T00:00:00Z");

/** Options that make the same messages each time: fixed session, clock and counted ids. */
function fixedOptions(): FromAnthropicOptions {
  let count = 0;
  return { sessionId: "s1", clock: () => FIXED, generateId: () => `m-${++count}` };
}

function roundTrip(params: readonly unknown[]): MessageParam[] {
  return toAnthropicMessages(fromAnthropicMessages(params));
}

function expectValidationError(run: () => unknown, pattern: RegExp): void {
  expect(run).toThrow(ValidationError);
  expect(run).toThrow(pattern);
}

const user = (content: MessageParam["content"]): MessageParam => ({ role: "user", content });

describe("toAnthropicMessages", () => {
  it("merges consecutive messages of one role, tool results first", () => {
    const messages = new ConversationBuilder()
      .user("read it")
      .assistant([toolUseBlock("toolu_1", "read", { path: "a" })])
      .build();
    const later: Message[] = [
      {
        role: "user",
        id: "x-1",
        sessionId: "session-test",
        turnId: { owner: "u", number: 1 },
        createdAt: FIXED,
        content: [{ type: "text", text: "and hurry" }],
      },
      {
        role: "user",
        id: "x-2",
        sessionId: "session-test",
        turnId: { owner: "u", number: 1 },
        createdAt: FIXED,
        content: [toolResultBlock("toolu_1", "contents", { compactSummary: "a: 1 line" })],
      },
    ];
    expect(toAnthropicMessages([...messages, ...later])).toEqual([
      { role: "user", content: [{ type: "text", text: "read it" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "contents" },
          { type: "text", text: "and hurry" },
        ],
      },
    ]);
  });

  it("sends merged string-content messages as arrays without the marker", () => {
    const params = toAnthropicMessages([
      ...fromAnthropicMessages([user("one")]),
      ...fromAnthropicMessages([user("two")]),
    ]);
    expect(params).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
    ]);
    expect(JSON.stringify(params)).not.toContain(STRING_CONTENT_KEY);
  });

  it("sends a compacted conversation as valid alternating messages, summary merged with the kept request", async () => {
    const conversation = new ConversationBuilder()
      .user("Never edit generated files.")
      // Large enough for a summary to shrink it (a tiny fold is skipped without a request).
      .toolCall({ name: "ls", result: "a.ts ".repeat(200), compactSummary: "1 file" })
      .assistant("One file.")
      .user("Now fix a.ts")
      .toolCall({ name: "read", input: { path: "a.ts" }, result: "x".repeat(400) })
      .assistant("Fixed.")
      .build();
    const compactor = new LLMCompactor(new MockLlmClient().reply("They listed files."), {
      keepRecentTurns: 1,
      keepUserMessagesTokens: 0,
      factsSectionTokens: 0,
    });
    const { conversation: compacted } = await compactor.compactAsync(conversation, new Map());
    const params = toAnthropicMessages(compacted);
    expect(params.map((param) => param.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(params[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: `${SUMMARY_PREFIX}They listed files.` },
        { type: "text", text: "Now fix a.ts" },
      ],
    });
    // And back: the summary and the kept request are apart again, in their own turns.
    const again = fromAnthropicMessages(params, { firstTurnNumber: 2 });
    expect(again.map((message) => message.turnId.number)).toEqual([0, 2, 2, 2, 2]);
    expect(toAnthropicMessages(again)).toEqual(params);
  });

  it("rejects malformed messages with a ValidationError naming the path", () => {
    expectValidationError(
      () => toAnthropicMessages([{ role: "user", content: [] } as unknown as Message]),
      /\[0\]\.content/,
    );
    const [good] = fromAnthropicMessages([user("a")]);
    const bad = {
      ...good!,
      content: [{ type: "tool_result", toolUseId: "t", isError: false, content: 5 }],
    } as unknown as Message;
    expectValidationError(() => toAnthropicMessages([good!, bad]), /\[1\]\.content\[0\]/);
  });

  it("rejects two messages with one id, naming the second", () => {
    const [first, second] = fromAnthropicMessages([user("a"), user("b")], fixedOptions());
    expectValidationError(
      () => toAnthropicMessages([first!, { ...second!, id: first!.id }]),
      /\[1\]\.id: duplicate message id "m-1"/,
    );
    expectValidationError(() => toAnthropicMessages([first!, first!]), /duplicate message id/);
  });
});

describe("round trip (property)", () => {
  it("random valid MessageParam[] -> ours -> back is deep-equal", () => {
    fc.assert(
      fc.property(messageParams, (params) => {
        const snapshot = structuredClone(params);
        const back = roundTrip(params);
        expect(back).toEqual(params);
        // Byte for byte on the wire, too (key order aside, JSON is the same text).
        expect(canonical(back)).toBe(canonical(params));
        expect(params).toEqual(snapshot);
      }),
      { seed: 20260101, numRuns: 400 },
    );
  });

  it("ours -> back -> ours gives the same blocks and turns", () => {
    fc.assert(
      fc.property(messageParams, (params) => {
        const messages = fromAnthropicMessages(params, fixedOptions());
        const again = fromAnthropicMessages(toAnthropicMessages(messages), fixedOptions());
        expect(again).toEqual(messages);
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
