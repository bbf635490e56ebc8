import { describe, expect, it } from "vitest";
import { createMessage } from "./message-factory.js";

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
