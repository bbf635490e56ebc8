import { describe, expect, it } from "vitest";
import { createMessage, newIdSequence } from "./message-factory.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newIdSequence", () => {
  it("gives uuid v7s, the first a new one, each next greater by one in the last 48 bits", () => {
    const next = newIdSequence();
    const ids = Array.from({ length: 1000 }, next);
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(BigInt(`0x${ids[999]!.slice(24)}`) - BigInt(`0x${ids[0]!.slice(24)}`)).toBe(999n);
    expect(newIdSequence()()).not.toBe(ids[0]);
  });

  it("carries from the low 24 bits into the high ones", () => {
    const next = newIdSequence("01900000-0000-7000-8000-000000fffffe");
    expect([next(), next(), next()]).toEqual([
      "01900000-0000-7000-8000-000000fffffe",
      "01900000-0000-7000-8000-000000ffffff",
      "01900000-0000-7000-8000-000001000000",
    ]);
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
