import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "../core/summary-format.js";
import { AgentSession } from "../session/agent-session.js";
import { STRING_CONTENT_KEY } from "./blocks.js";
import { toAnthropicMessages } from "./request.js";
import { fromAnthropicMessages } from "./turns.js";

const FIXED = new Date("2026-01-01T00:00:00Z");

function counterIds(prefix = "m"): () => string {
  let count = 0;
  return () => `${prefix}-${++count}`;
}

function from(
  params: readonly unknown[],
  options: Parameters<typeof fromAnthropicMessages>[1] = {},
) {
  return fromAnthropicMessages(params, {
    sessionId: "s1",
    clock: () => FIXED,
    generateId: counterIds(),
    ...options,
  });
}
function expectValidationError(run: () => unknown, pattern: RegExp): void {
  expect(run).toThrow(ValidationError);
  expect(run).toThrow(pattern);
}

const user = (content: MessageParam["content"]): MessageParam => ({ role: "user", content });
const assistant = (content: MessageParam["content"]): MessageParam => ({
  role: "assistant",
  content,
});

describe("fromAnthropicMessages: turns, ids, summary", () => {
  it("opens a turn at each user request and keeps the tool loop in it", () => {
    const messages = from([
      user("List the files"),
      assistant([
        { type: "text", text: "Listing." },
        { type: "tool_use", id: "toolu_1", name: "ls", input: {} },
      ]),
      user([{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts b.ts" }]),
      assistant("Two files."),
      user([{ type: "text", text: "Open a.ts" }]),
      assistant("Done."),
    ]);
    expect(
      messages.map((message) => `${message.role}:${message.turnId.owner}${message.turnId.number}`),
    ).toEqual(["user:u1", "assistant:u1", "user:u1", "assistant:u1", "user:u2", "assistant:u2"]);
    expect(messages.map((message) => message.id)).toEqual([
      "m-1",
      "m-2",
      "m-3",
      "m-4",
      "m-5",
      "m-6",
    ]);
    expect(messages.every((message) => message.sessionId === "s1")).toBe(true);
    expect(messages.every((message) => message.createdAt === FIXED)).toBe(true);
  });

  it("numbers turns from firstTurnNumber", () => {
    const messages = from([user("a"), assistant("b"), user("c")], { firstTurnNumber: 7 });
    expect(messages.map((message) => message.turnId.number)).toEqual([7, 7, 8]);
  });

  it("keeps a tool-result message that also carries text in the tool loop", () => {
    const messages = from([
      user("go"),
      assistant([{ type: "tool_use", id: "toolu_1", name: "ls", input: {} }]),
      user([
        { type: "tool_result", tool_use_id: "toolu_1", content: "x" },
        { type: "text", text: "<reminder>stay focused</reminder>" },
      ]),
    ]);
    expect(messages.map((message) => message.turnId.number)).toEqual([1, 1, 1]);
  });

  it("opens a turn when the conversation starts with tool results or the assistant", () => {
    expect(
      from([user([{ type: "tool_result", tool_use_id: "toolu_0", content: "late" }])])[0]!.turnId,
    ).toEqual({ owner: "u", number: 1 });
    expect(from([assistant("prefill")])[0]!.turnId).toEqual({ owner: "u", number: 1 });
  });

  it("makes a message that starts with the summary the summary turn u0, alone in it", () => {
    // What follows the summary opens a turn: a step kept after a fold inside a long turn stays
    // compactable, not frozen into the summary's turn (which every compaction keeps).
    const messages = from([
      user(`${SUMMARY_PREFIX}we fixed the parser`),
      assistant("Understood."),
      user("next task"),
    ]);
    expect(messages.map((message) => message.turnId)).toEqual([
      { owner: "u", number: 0 },
      { owner: "u", number: 1 },
      { owner: "u", number: 2 },
    ]);
  });

  it("splits a summary merged with the first kept user message back into two", () => {
    const params = [
      user([
        { type: "text", text: `${SUMMARY_PREFIX}we fixed the parser` },
        { type: "text", text: `${EARLIER_USER_MESSAGE_PREFIX}never touch main` },
        { type: "text", text: "Now add tests" },
      ]),
      assistant("On it."),
    ];
    const messages = from(params, { firstTurnNumber: 4 });
    expect(messages.map((message) => [message.turnId.number, message.content.length])).toEqual([
      [0, 2],
      [4, 1],
      [4, 1],
    ]);
    expect(toAnthropicMessages(messages)).toEqual(params);
  });

  it("generates uuid v7 ids and a session id by default", () => {
    const messages = fromAnthropicMessages([user("a"), assistant("b")]);
    const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(messages[0]!.id).toMatch(uuidV7);
    expect(messages[0]!.sessionId).toMatch(uuidV7);
    expect(messages[0]!.id).not.toBe(messages[1]!.id);
    expect(messages[1]!.sessionId).toBe(messages[0]!.sessionId);
  });

  it("remembers string content so it goes back as a string", () => {
    const messages = from([user("hi"), assistant("The answer is (")]);
    expect(messages[0]!.content).toEqual([
      { type: "text", text: "hi", extra: { [STRING_CONTENT_KEY]: true } },
    ]);
    expect(toAnthropicMessages(messages)).toEqual([user("hi"), assistant("The answer is (")]);
    expect(toAnthropicMessages(from([user("")]))).toEqual([user("")]);
  });

  it("returns an empty conversation for no params", () => {
    expect(from([])).toEqual([]);
  });
});

describe("fromAnthropicMessages: options and what they make", () => {
  it("rejects params that are not an array, and bad options", () => {
    expect(() => fromAnthropicMessages("hi" as never)).toThrow(ValidationError);
    expectValidationError(() => from([], { firstTurnNumber: 0 }), /firstTurnNumber/);
    expectValidationError(() => from([], { sessionId: "" }), /sessionId/);
    expectValidationError(
      () => from([user("a"), user("b")], { generateId: () => "same" }),
      /duplicate message id/,
    );
  });

  it("rejects an empty id or an invalid date the options made, naming them", () => {
    const emptyId = () => from([user("a")], { generateId: () => "" });
    expectValidationError(emptyId, /generateId/);
    expectValidationError(emptyId, /\[0\]\.id: must be a non-empty string/);
    const badClock = () => from([user("a")], { clock: () => new Date(Number.NaN) });
    expectValidationError(badClock, /clock/);
    expectValidationError(badClock, /\[0\]\.createdAt/);
  });
});

describe("with a session", () => {
  it("a session continues turn numbering after imported messages", () => {
    const session = new AgentSession({ contextLimit: 10_000, compactor: false, sessionId: "s1" });
    session.append(
      ...from([
        user(`${SUMMARY_PREFIX}earlier work`),
        assistant("ok"),
        user("task one"),
        assistant("done"),
      ]),
    );
    const next = session.addUserText("task two");
    // u0 (the summary), u1 (the reply after it), u2 (task one), then u3.
    expect(next.turnId).toEqual({ owner: "u", number: 3 });
    expect(toAnthropicMessages(session.messages).at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "task two" }],
    });
  });
});
