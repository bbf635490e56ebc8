import { describe, expect, it } from "vitest";
import { statelessIntake } from "../session/stateless-intake.js";
import { ConversationBuilder } from "../testing/index.js";
import { exchangeIssues } from "./exchanges.js";
import {
  closeInterruptedCalls,
  INTERRUPTED_NOTICE,
  interruptedResult,
} from "./interrupted-calls.js";
import type { ContentBlock, Message } from "./message.js";

const clock = () => new Date(0);

function use(id: string): ContentBlock {
  return { type: "tool_use", id, name: "read_file", input: { path: `${id}.ts` } };
}

function result(id: string): ContentBlock {
  return { type: "tool_result", toolUseId: id, content: "ok", isError: false };
}

const text = (value: string): ContentBlock => ({ type: "text", text: value });

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

  it("closes the calls of the message before the ones given", () => {
    const [before, ...after] = new ConversationBuilder()
      .user("go")
      .assistant([use("a")])
      .user("stop")
      .build()
      .slice(1);
    const closed = closeInterruptedCalls(after, clock, before);
    expect(contents(closed)).toEqual([["user", [interruptedResult("a"), text("stop")]]]);
  });
});

describe("statelessIntake and interrupted calls", () => {
  const settings = {
    maxBlockTokens: 100_000,
    clampNamer: undefined,
    keepStaleThinking: false,
    clock,
  };

  it("closes them, and drops the thinking made after them, unless told to keep it", () => {
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
    expect(intake.messages[3]!.content).toEqual([text("ok")]);
    const kept = statelessIntake(messages, { ...settings, keepStaleThinking: true });
    expect(kept.messages[3]!.content).toEqual([thinking, text("ok")]);
  });

  it("tells calls of the message before from the results that answer them", () => {
    const [before, ...after] = new ConversationBuilder()
      .user("go")
      .assistant([use("a")])
      .user([result("a")])
      .assistant("done")
      .build()
      .slice(1);
    const whole = statelessIntake(after, settings, before);
    expect(whole.repaired).toBe(false);
    expect(whole.messages).toEqual(after);
    const cut = statelessIntake(after.slice(1), settings, before);
    expect(cut.repaired).toBe(true);
    expect(cut.messages[0]!.content).toEqual([interruptedResult("a")]);
  });
});
