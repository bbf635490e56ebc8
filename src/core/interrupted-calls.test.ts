import { describe, expect, it } from "vitest";
import { statelessIntake } from "../session/stateless-intake.js";
import { ConversationBuilder } from "../testing/index.js";
import { exchangeIssues } from "./exchanges.js";
import {
  closeInterruptedCalls,
  INTERRUPTED_NOTICE,
  interruptedResult,
  openCalls,
} from "./interrupted-calls.js";
import { LATE_RESULT_NOTICE } from "./late-results.js";
import { type ContentBlock, type Message, SYSTEM_MESSAGE_BLOCK_TYPE } from "./message.js";

const clock = () => new Date(0);
const settings = {
  maxBlockTokens: 100_000,
  clampNamer: undefined,
  keepStaleThinking: false,
  clock,
};

function use(id: string): ContentBlock {
  return { type: "tool_use", id, name: "read_file", input: { path: `${id}.ts` } };
}

function result(id: string): ContentBlock {
  return { type: "tool_result", toolUseId: id, content: "ok", isError: false };
}

const text = (value: string): ContentBlock => ({ type: "text", text: value });

/** A system message's block, as the formats with system messages between others carry it. */
const system: ContentBlock = {
  type: "opaque",
  block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "Budget: 3" } },
};

/** Two calls, answered in a message each, then the assistant's reply. */
function answeredOneByOne(): ConversationBuilder {
  return new ConversationBuilder()
    .user("go")
    .assistant([use("a"), use("b")])
    .user([result("a")])
    .user([result("b")])
    .assistant("done");
}

function contents(messages: readonly Message[]): [string, ContentBlock[]][] {
  return messages.map((message) => [message.role, message.content]);
}

describe("closeInterruptedCalls", () => {
  it("gives the user message after the calls the results it lacks, after its own", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b"), use("c")])
      .user([result("b"), text("stop")])
      .assistant("ok")
      .build();
    const closed = closeInterruptedCalls(messages, clock);
    expect(contents(closed)[2]).toEqual([
      "user",
      [result("b"), interruptedResult("a"), interruptedResult("c"), text("stop")],
    ]);
    expect(closed[2]!.id).toBe(messages[2]!.id);
    expect(exchangeIssues(closed)).toEqual([]);
    // Nothing else changed, and the caller's messages were not touched.
    expect(closed.filter((message, index) => message !== messages[index])).toHaveLength(1);
    expect(messages[2]!.content).toHaveLength(2);
  });

  it("puts a message of results between the calls and an assistant message right after", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a")])
      .assistant("I went on.")
      .user("and?")
      .build();
    const closed = closeInterruptedCalls(messages, clock);
    expect(contents(closed)).toEqual([
      contents(messages)[0],
      contents(messages)[1],
      ["user", [interruptedResult("a")]],
      contents(messages)[2],
      contents(messages)[3],
    ]);
    expect(closed[2]!.turnId).toEqual(messages[1]!.turnId);
    expect(exchangeIssues(closed)).toEqual([]);
    expect(interruptedResult("a")).toMatchObject({ content: INTERRUPTED_NOTICE, isError: true });
  });

  it("leaves the open tail open: the last message's calls, and a last message of results", () => {
    const waiting = new ConversationBuilder()
      .user("go")
      .assistant([use("a")])
      .build();
    expect(closeInterruptedCalls(waiting, clock)).toBe(waiting);
    const answering = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b")])
      .user([result("a")])
      .build();
    expect(closeInterruptedCalls(answering, clock)).toBe(answering);
  });

  it("closes the calls of the messages before the ones given, through their run of results", () => {
    const history = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b"), use("c")])
      .user([result("a")])
      .user([result("b")])
      .user("stop")
      .build();
    const closed = closeInterruptedCalls(history.slice(4), clock, history.slice(0, 4));
    expect(contents(closed)).toEqual([["user", [interruptedResult("c"), text("stop")]]]);
    expect(openCalls(history.slice(0, 4)).ids).toEqual(["c"]);
    expect(openCalls(history).ids).toEqual([]);
  });

  it("takes a run of messages of one result each as the calls' results", () => {
    const messages = answeredOneByOne().user("next").build();
    expect(closeInterruptedCalls(messages, clock)).toBe(messages);
    // One answered, the other not: closed after the run, before the assistant message.
    const partial = [...messages.slice(0, 3), ...messages.slice(4)];
    const closed = closeInterruptedCalls(partial, clock);
    expect(contents(closed).slice(2, 5)).toEqual([
      ["user", [result("a")]],
      ["user", [interruptedResult("b")]],
      contents(partial)[3],
    ]);
  });

  it("puts the results before a system message, which stays as it was", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a")])
      .user([system])
      .user("and?")
      .build();
    const closed = closeInterruptedCalls(messages, clock);
    expect(contents(closed).slice(2)).toEqual([
      ["user", [interruptedResult("a")]],
      ["user", [system]],
      ["user", [text("and?")]],
    ]);
    expect(closed[3]).toBe(messages[2]);
  });

  it("moves a result given after the user's words up to its calls, in a message of its own", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b"), use("c"), use("d")])
      .user([result("a")])
      .user("meanwhile")
      .user([result("c"), text("and")])
      .user([result("b")])
      .assistant("done")
      .build();
    const closed = closeInterruptedCalls(messages, clock);
    // The user's message stays as it was (a moved result's fields are its tool message's).
    expect(contents(closed).slice(2)).toEqual([
      ["user", [result("a")]],
      ["user", [result("b"), result("c"), interruptedResult("d")]],
      ["user", [text("meanwhile")]],
      ["user", [text("and")]],
      ["assistant", [text("done")]],
    ]);
    // The very blocks, moved; the caller's messages untouched.
    expect(closed[3]!.content[0]).toBe(messages[5]!.content[0]);
    expect(closed[3]!.turnId).toEqual(messages[1]!.turnId);
    expect(closed[4]).toBe(messages[3]);
    expect(closed[5]!.id).toBe(messages[4]!.id);
    expect(messages[4]!.content).toHaveLength(2);
  });

  it("answers a call id made twice once (malformed, but sent)", () => {
    const twice = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("a")])
      .user([system])
      .user([result("a")])
      .user("next")
      .build();
    expect(contents(closeInterruptedCalls(twice, clock)).slice(2)).toEqual([
      ["user", [result("a")]],
      ["user", [system]],
      ["user", [text("next")]],
    ]);
    const never = [...twice.slice(0, 3), ...twice.slice(4)];
    expect(contents(closeInterruptedCalls(never, clock)).slice(2, 3)).toEqual([
      ["user", [interruptedResult("a")]],
    ]);
  });

  it("moves results given after a system message up before it (a harness's reminder)", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b")])
      .user([result("a")])
      .user([system])
      .user([result("b")])
      .build();
    const closed = closeInterruptedCalls(messages, clock);
    expect(contents(closed).slice(2)).toEqual([
      ["user", [result("a")]],
      ["user", [result("b")]],
      ["user", [system]],
    ]);
    expect(closed[3]!.turnId).toEqual(messages[1]!.turnId);
    expect(closed[4]).toBe(messages[3]);
  });

  it("leaves a call answered only after an assistant message, when kept (the Responses API takes it)", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b")])
      .user([result("a")])
      .user("meanwhile")
      .assistant("waiting for b")
      .user([result("b")])
      .assistant("done")
      .build();
    expect(closeInterruptedCalls(messages, clock, [], "kept")).toBe(messages);
    // Also when the assistant message comes right after the results given.
    const right = [...messages.slice(0, 3), ...messages.slice(4)];
    expect(closeInterruptedCalls(right, clock, [], "kept")).toBe(right);
    // Told (the default): the call is closed where the user went on, the late result told as
    // text where it came, after the assistant message.
    const told = closeInterruptedCalls(messages, clock);
    expect(told.map((message) => message.content.map((block) => block.type))).toEqual([
      ["text"],
      ["tool_use", "tool_use"],
      ["tool_result"],
      ["tool_result", "text"],
      ["text"],
      ["text"],
      ["text"],
    ]);
    expect(told[3]!.content[0]).toMatchObject({ toolUseId: "b", content: INTERRUPTED_NOTICE });
    const late = told[5]!.content[0];
    expect(late?.type === "text" && late.text).toContain(`${LATE_RESULT_NOTICE} b]\nok`);
    expect(told.at(-1)).toBe(messages.at(-1));
  });

  it("closes a call whose id a later exchange takes again (some servers number calls per response)", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("call_0")])
      .user("stop, read the other")
      .assistant([use("call_0")])
      .user([result("call_0")])
      .assistant("done")
      .build();
    const closed = closeInterruptedCalls(messages, clock);
    expect(contents(closed)[2]).toEqual([
      "user",
      [interruptedResult("call_0"), text("stop, read the other")],
    ]);
    expect(closed.slice(3)).toEqual(messages.slice(3));
  });

  it("takes provider blocks carried whole among results as waiting with them (a tool approval)", () => {
    const approval: ContentBlock = {
      type: "opaque",
      block: { type: "tool-approval-response", approvalId: "ap1", approved: true },
    };
    const messages = new ConversationBuilder()
      .user("Deploy it.")
      .assistant([use("a")])
      .user([approval])
      .build();
    expect(closeInterruptedCalls(messages, clock)).toBe(messages);
    expect(statelessIntake(messages, settings).repaired).toBe(false);
  });

  it("closes the rest of the calls when the last message holds the user's words after results", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a"), use("b")])
      .user([result("a"), text("stop")])
      .build();
    expect(contents(closeInterruptedCalls(messages, clock)).at(-1)).toEqual([
      "user",
      [result("a"), interruptedResult("b"), text("stop")],
    ]);
  });
});

describe("statelessIntake and interrupted calls", () => {
  it("closes them, and keeps the thinking made after them (made over the same closing)", () => {
    const thinking: ContentBlock = { type: "thinking", thinking: "hmm", signature: "sig" };
    const messages = new ConversationBuilder()
      .user("go")
      .assistant([use("a")])
      .user("stop")
      .assistant([thinking, text("ok")])
      .user("next")
      .build();
    const intake = statelessIntake(messages, settings);
    expect(intake.repaired).toBe(true);
    expect(intake.messages[2]!.content[0]).toEqual(interruptedResult("a"));
    expect(intake.messages[3]).toBe(messages[3]);
    expect(intake.messages).toHaveLength(messages.length);
  });

  it("tells calls of the messages before from the results that answer them", () => {
    const history = answeredOneByOne().build();
    for (const cut of [2, 3, 4]) {
      const whole = statelessIntake(history.slice(cut), settings, history.slice(0, cut));
      expect(whole.repaired).toBe(false);
      expect(whole.messages).toEqual(history.slice(cut));
    }
    // The known history ends with one of the two answered: the next message went on.
    const cut = statelessIntake(history.slice(4), settings, history.slice(0, 3));
    expect(cut.repaired).toBe(true);
    expect(contents(cut.messages)[0]).toEqual(["user", [interruptedResult("b")]]);
  });
});
