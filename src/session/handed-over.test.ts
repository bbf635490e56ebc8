import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { ConversationBuilder } from "../testing/index.js";
import { AgentSession } from "./agent-session.js";
import { handOver, takeHandedOver } from "./handed-over.js";

function conversation(prefix: string): Message[] {
  return new ConversationBuilder({ idPrefix: prefix })
    .user("read the files")
    .toolCall({ name: "read", input: { path: "a.ts", flags: ["x"] }, result: "a".repeat(50) })
    .assistant("done")
    .build();
}

/** What a session stores, as data (the copy the schema makes when nothing is handed over). */
function stored(messages: Message[], handed: boolean): unknown {
  const session = new AgentSession({ contextLimit: 100_000 });
  if (handed) handOver(messages);
  session.append(...messages);
  return JSON.parse(JSON.stringify(session.messages));
}

describe("messages handed over to a session", () => {
  it("are stored as the schema's copy stores them, frozen, taken once", () => {
    const messages = conversation("h");
    const copied = stored(conversation("h"), false);
    const session = new AgentSession({ contextLimit: 100_000 });
    handOver(messages);
    session.append(...messages);
    expect(JSON.parse(JSON.stringify(session.messages))).toEqual(copied);
    expect(session.messages[1]).toBe(messages[1]);
    expect(Object.isFrozen(messages[1]!.content[0])).toBe(true);
    expect(takeHandedOver(messages)).toBe(false);
  });

  it("are taken only as handed over, once, and a malformed one still goes to the schema", () => {
    const messages = conversation("m");
    handOver(messages.slice(1));
    expect(takeHandedOver(messages)).toBe(false);
    handOver(messages);
    expect(takeHandedOver([...messages].reverse())).toBe(false);
    expect(takeHandedOver(messages)).toBe(false);
    handOver(messages);
    handOver(undefined);
    expect(takeHandedOver(messages)).toBe(false);
    const broken = conversation("b");
    (broken[1] as { id: unknown }).id = "";
    handOver(broken);
    expect(() => new AgentSession({ contextLimit: 100_000 }).append(...broken)).toThrow(
      /\[1\]\.id: must be a non-empty string/,
    );
  });

  it("leave messages not handed over to the schema's copy", () => {
    const messages = conversation("c");
    const session = new AgentSession({ contextLimit: 100_000 });
    session.append(...messages);
    expect(session.messages[1]).not.toBe(messages[1]);
    expect(Object.isFrozen(messages[1])).toBe(false);
  });
});
