// What a converter's options made is checked where it enters (review F12): a `clock` that gives
// no valid Date, a Gemini `generateId` that gives an empty, repeated or non-string id, are each a
// ValidationError naming the option, as `fromAnthropicMessages` has it.
import { describe, expect, it } from "vitest";
import { refusedPaths } from "../../test/support/refusals.js";
import { fromModelMessages } from "../ai-sdk/model-messages.js";
import { fromAnthropicMessages } from "../anthropic/turns.js";
import { fromChatMessages } from "../chat-completions/chat-messages-in.js";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { fromGeminiContents } from "../gemini/contents-in.js";
import { fromLangChainMessages } from "../langchain/messages-in.js";
import { fromResponsesInput } from "../openai/responses-input.js";
import { AgentSession } from "../session/agent-session.js";
import { checkedGenerateId, checkMadeByOptions } from "./conversion-options.js";

function issueOf(run: () => unknown): { subject: string; path: unknown; message: string } {
  try {
    run();
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    const [issue] = error.issues;
    // The subject opens the error's message: "Invalid <subject>: …".
    const subject = /^Invalid (.*?): /.exec(error.message)?.[1] ?? "";
    return { subject, path: issue?.path, message: issue?.message ?? "" };
  }
  throw new Error("no ValidationError");
}

const BAD_CLOCKS: [string, unknown][] = [
  ["a string", () => "notadate"],
  ["an Invalid Date", () => new Date(Number.NaN)],
  ["a number", () => 7],
];

/** Each converter on one user message, with `clock`. */
const CONVERTERS: [string, (clock: Clock) => Message[]][] = [
  ["fromChatMessages", (clock) => fromChatMessages([{ role: "user", content: "x" }], { clock })],
  ["fromResponsesInput", (clock) => fromResponsesInput("x", { clock })],
  ["fromGeminiContents", (clock) => fromGeminiContents("x", { clock })],
  [
    "fromLangChainMessages",
    (clock) => fromLangChainMessages([{ type: "human", content: "x" }], { clock }),
  ],
];

describe("a clock that gives no valid Date", () => {
  for (const [name, convert] of CONVERTERS) {
    it.each(BAD_CLOCKS)(`is refused by ${name} when it gives %s`, (_what, clock) => {
      expect(issueOf(() => convert(clock as Clock))).toEqual({
        subject: `${name} options`,
        path: ["clock"],
        message: expect.stringMatching(/^must return a valid Date/),
      });
    });
    it(`is not in the way of ${name} given a good one`, () => {
      const date = new Date(5);
      expect(convert(() => date)[0]!.createdAt).toBe(date);
    });
  }

  it("is refused by fromAnthropicMessages (as before)", () => {
    expect(() =>
      fromAnthropicMessages([{ role: "user", content: "x" }], {
        clock: () => new Date(Number.NaN),
      }),
    ).toThrow(ValidationError);
  });

  it("is refused by fromModelMessages", () => {
    expect(
      issueOf(() =>
        fromModelMessages([{ role: "user", content: "x" }], { clock: () => new Date(Number.NaN) }),
      ).path,
    ).toEqual(["clock"]);
  });
});

describe("fromGeminiContents's generateId", () => {
  const calls = [
    { role: "user", parts: [{ text: "q" }] },
    {
      role: "model",
      parts: [{ functionCall: { name: "n", args: {} } }, { functionCall: { name: "n", args: {} } }],
    },
  ];

  it.each([
    ["an empty string", () => "", /an empty string/],
    ["the same id twice", () => "same", /"same" again/],
    ["a number", () => 7, /number 7/],
  ])("is refused, named, when it gives %s", (_what, generateId, found) => {
    expect(
      issueOf(() => fromGeminiContents(calls, { generateId: generateId as () => string })),
    ).toEqual({
      subject: "fromGeminiContents options",
      path: ["generateId"],
      message: expect.stringMatching(found),
    });
  });

  it("gives each call its own id", () => {
    let next = 0;
    const generateId = () => {
      next += 1;
      return `id${next}`;
    };
    const messages = fromGeminiContents(calls, { generateId });
    expect(messages[1]!.content.map((block) => (block as { id: string }).id)).toEqual([
      "id1",
      "id2",
    ]);
  });
});

describe("checkMadeByOptions and checkedGenerateId", () => {
  it("return what they were given when it is good", () => {
    expect(checkMadeByOptions([], "s")).toEqual([]);
    expect(checkedGenerateId(undefined, "s")).toBeUndefined();
  });

  it("check every message's date, not the first only", () => {
    const [good] = fromChatMessages([{ role: "user", content: "x" }]);
    const bad = { ...good!, createdAt: new Date(Number.NaN) };
    expect(issueOf(() => checkMadeByOptions([good!, bad], "s")).path).toEqual(["clock"]);
  });
});

describe("an AgentSession's clock that gives no valid Date", () => {
  for (const [label, clock] of [
    ["a string", () => "x"],
    ["an Invalid Date", () => new Date(Number.NaN)],
    ["a number", () => 5],
  ] as const) {
    it(`is refused, naming clock, and nothing is taken: ${label}`, () => {
      const session = new AgentSession({ contextLimit: 10_000, clock: clock as unknown as Clock });
      expect(refusedPaths(() => session.addUserText("hi"))).toEqual(["clock"]);
      expect(session.messages).toEqual([]);
    });
  }
  it("a clock giving Dates dates the messages", () => {
    const at = new Date(1_000);
    const session = new AgentSession({ contextLimit: 10_000, clock: () => at });
    session.addUserText("hi");
    expect(session.messages[0]?.createdAt).toBe(at);
  });
});
