import { describe, expect, it } from "vitest";
import { ConversationBuilder } from "../testing/builders.js";
import type { Message } from "./message.js";
import {
  LenientMessageSchema,
  MessageSchema,
  SerializedMessageSchema,
  UserMessageSchema,
} from "./schemas.js";

const [message] = new ConversationBuilder().user("Fix the failing test").build();

describe("the message shapes, from one definition", () => {
  it("read the same message the same way", () => {
    const serialized = JSON.parse(JSON.stringify(message));
    expect(MessageSchema.parse(message)).toEqual(message);
    expect(UserMessageSchema.parse(message)).toEqual(message);
    expect(LenientMessageSchema.parse(message)).toEqual(message);
    expect(SerializedMessageSchema.parse(serialized)).toEqual(message);
  });

  it("differ only where they are meant to: empty content, and the date's form", () => {
    const empty = { ...message, content: [] };
    expect(MessageSchema.safeParse(empty).success).toBe(false);
    expect(LenientMessageSchema.safeParse(empty).success).toBe(true);
    expect(SerializedMessageSchema.safeParse(message).success).toBe(false);
  });

  it("check every field in each shape (generated included)", () => {
    const bad = { ...message, generated: "bogus", sessionId: "" };
    for (const schema of [MessageSchema, LenientMessageSchema]) {
      const issues = schema.safeParse(bad).error?.issues.map((issue) => issue.path.join("."));
      expect(issues).toEqual(expect.arrayContaining(["sessionId", "generated"]));
    }
    const serialized = { ...JSON.parse(JSON.stringify(message)), generated: "bogus" };
    expect(SerializedMessageSchema.safeParse(serialized).success).toBe(false);
  });
});

describe("MessageSchema", () => {
  const [valid] = new ConversationBuilder().user("hello").build() as [Message];

  it("accepts a valid message and every block type", () => {
    const message: Message = {
      ...valid,
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig==" },
        { type: "redacted_thinking", data: "abc" },
        { type: "text", text: "t", extra: { cache_control: { type: "ephemeral" } } },
        { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
        { type: "tool_use", id: "t1", name: "n", input: { a: [1, null, { b: true }] } },
        { type: "opaque", block: { type: "server_tool_use", id: "s1" } },
      ],
    };
    expect(MessageSchema.parse(message)).toEqual(message);
  });

  it.each([
    ["role", { role: "system" }],
    ["turnId", { turnId: { owner: "u", number: 1.5 } }],
    ["createdAt", { createdAt: new Date("nope") }],
    ["content", { content: [] }],
    ["content", { content: [{ type: "tool_use", id: "", name: "n", input: {} }] }],
    ["content", { content: [{ type: "text", text: "x", extra: { n: Number.NaN } }] }],
  ])("refuses a bad %s", (_field, patch) => {
    expect(MessageSchema.safeParse({ ...valid, ...patch }).success).toBe(false);
  });

  it("restores dates from a snapshot's ISO strings", () => {
    const parsed = SerializedMessageSchema.parse({
      ...valid,
      createdAt: valid.createdAt.toISOString(),
    });
    expect(parsed).toEqual(valid);
  });
});
