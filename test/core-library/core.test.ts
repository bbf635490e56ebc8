import { describe, expect, it } from "vitest";
import { createMessage } from "../../src/core/message-factory.js";
import {
  CompactionError,
  estimateTokens,
  extractTurnIds,
  type Message,
  MessageSchema,
  ValidationError,
} from "../../src/index.js";
import { SerializedMessageSchema } from "../../src/schemas.js";
import { ConversationBuilder } from "../../src/testing/index.js";

describe("extractTurnIds", () => {
  it("lists unique turn ids in order of first appearance", () => {
    const messages = new ConversationBuilder()
      .inTurn({ owner: "a", number: 2 })
      .assistant("x")
      .inTurn({ owner: "b", number: 1 })
      .assistant("y")
      .inTurn({ owner: "a", number: 2 })
      .assistant("z")
      .build();
    expect(extractTurnIds(messages)).toEqual([
      { owner: "a", number: 2 },
      { owner: "b", number: 1 },
    ]);
    expect(extractTurnIds([])).toEqual([]);
  });
});

describe("createMessage", () => {
  it("assigns a uuid v7 id, copies the turn id and stamps the clock's time", () => {
    const turnId = { owner: "u", number: 4 };
    const message = createMessage({
      role: "user",
      sessionId: "s",
      turnId,
      content: [{ type: "text", text: "hi" }],
      clock: () => new Date(0),
    });
    expect(message.id).toMatch(/^[0-9a-f-]{14}7/);
    expect(message.turnId).toEqual(turnId);
    expect(message.turnId).not.toBe(turnId);
    expect(message.createdAt).toEqual(new Date(0));
  });

  it("makes time-ordered ids", () => {
    const ids = Array.from({ length: 50 }, () =>
      createMessage({
        role: "user",
        sessionId: "s",
        turnId: { owner: "u", number: 1 },
        content: [],
      }),
    ).map((message) => message.id);
    expect([...ids].sort()).toEqual(ids);
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

describe("errors", () => {
  it("CompactionError carries a code and a cause, and is recognised across copies", () => {
    const cause = new Error("429");
    const error = new CompactionError("llm_error", "failed", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CompactionError");
    expect(error.code).toBe("llm_error");
    expect(error.cause).toBe(cause);
    expect(CompactionError.isInstance(error)).toBe(true);
    const foreign = Object.assign(new Error("x"), {
      [Symbol.for("agent-compaction.CompactionError")]: true,
    });
    expect(CompactionError.isInstance(foreign)).toBe(true);
    expect(CompactionError.isInstance(new Error("x"))).toBe(false);
    expect(CompactionError.isInstance(null)).toBe(false);
  });

  it("ValidationError names every offending path in its message", () => {
    const error = new ValidationError("messages", [
      { path: [3, "turnId", "number"], message: "must be a whole number" },
      { path: [], message: "must be an array" },
    ]);
    expect(error.message).toBe(
      "Invalid messages: [3].turnId.number: must be a whole number; must be an array",
    );
    expect(ValidationError.isInstance(error)).toBe(true);
  });
});

describe("estimateTokens", () => {
  it("counts about four characters a token, JSON inputs and images included", () => {
    const [short] = new ConversationBuilder().user("x".repeat(400)).build() as [Message];
    const [long] = new ConversationBuilder().user("x".repeat(4000)).build() as [Message];
    expect(estimateTokens([long]) - estimateTokens([short])).toBe(900);
    const [image] = new ConversationBuilder()
      .user([{ type: "image", source: { type: "base64", mediaType: "image/png", data: "AAAA" } }])
      .build() as [Message];
    expect(estimateTokens([image])).toBeGreaterThanOrEqual(1600);
  });
});

describe("MockLlmClient", () => {
  it("takes its script as options or as a plain array, records requests, then falls back", async () => {
    const { MockLlmClient } = await import("../../src/testing/index.js");
    const client = new MockLlmClient(["first", new Error("down")]);
    await expect(client.complete({ prompt: "a" })).resolves.toBe("first");
    await expect(client.complete({ prompt: "b" })).rejects.toThrow("down");
    await expect(client.complete({ prompt: "c" })).resolves.toMatch(/^Summary 3/);
    expect(client.requests.map((request) => request.prompt)).toEqual(["a", "b", "c"]);
  });
});
