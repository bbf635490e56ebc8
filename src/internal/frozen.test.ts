import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { freezeBuiltMessages, freezeDeeply, freezeMessages } from "./frozen.js";

/** Every object `value` holds, itself included, each once. */
function objectsOf(value: unknown, all: object[] = []): object[] {
  if (typeof value !== "object" || value === null || all.includes(value)) return all;
  all.push(value);
  for (const inner of Object.values(value)) objectsOf(inner, all);
  return all;
}

describe("freezeDeeply", () => {
  it("freezes every object and array held, however deep, and ends on cycles", () => {
    const leaf = { path: "a.ts" };
    const value: Record<string, unknown> = { list: [leaf, { inner: [1, { x: 2 }] }], leaf };
    value["self"] = value;
    (leaf as Record<string, unknown>)["up"] = undefined;
    expect(freezeDeeply(value)).toBe(value);
    const all: object[] = [];
    const walk = (item: unknown) => {
      if (typeof item !== "object" || item === null || all.includes(item)) return;
      all.push(item);
      for (const inner of Object.values(item)) walk(inner);
    };
    walk(value);
    expect(all.length).toBe(6);
    for (const item of all) expect(Object.isFrozen(item)).toBe(true);
  });

  it("walks again into an object frozen shallowly before, and a leaf shared by two values", () => {
    const inner = { n: 1 };
    const shallow = Object.freeze({ inner });
    freezeDeeply({ shallow });
    expect(Object.isFrozen(inner)).toBe(true);
    const shared = { n: 2 };
    freezeDeeply({ a: shared });
    const second = { b: shared, more: { m: 3 } };
    freezeDeeply(second);
    expect(Object.isFrozen(second.more)).toBe(true);
  });
});

describe("freezeMessages", () => {
  it("freezes every object a message holds, those it shares with another too, and ends on a cycle", () => {
    const shared = { path: "a.ts", nested: [{ deep: true }] };
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic["self"] = cyclic;
    const message = (id: string, extra: Record<string, unknown>) =>
      ({
        role: "assistant",
        id,
        sessionId: "s",
        turnId: { owner: "u", number: 1 },
        createdAt: new Date(0),
        content: [{ type: "tool_use", id: `t-${id}`, name: "read", input: shared, extra }],
      }) as unknown as Message;
    const messages = [message("a", { a: [1, { b: 2 }] }), message("b", { cyclic })];
    freezeMessages(messages);
    const all = objectsOf(messages);
    expect(all.length).toBeGreaterThan(12);
    for (const item of all.filter((each) => each !== messages))
      expect(Object.isFrozen(item)).toBe(true);
    expect(Object.isFrozen(messages)).toBe(false);
    freezeMessages(messages);
  });
});

describe("freezeMessages after a replacement", () => {
  it("skips what stays at its place in the messages frozen before, and freezes the rest", () => {
    const message = (id: string) =>
      ({
        role: "user",
        id,
        sessionId: "s",
        turnId: { owner: "u", number: 1 },
        createdAt: new Date(0),
        content: [{ type: "text", text: id }],
      }) as Message;
    const kept = message("kept");
    const moved = message("moved");
    const fresh = message("fresh");
    freezeMessages([moved, fresh, kept], [message("other"), message("other2"), kept]);
    expect(Object.isFrozen(kept)).toBe(false);
    expect(Object.isFrozen(moved.content[0])).toBe(true);
    expect(Object.isFrozen(fresh.turnId)).toBe(true);
  });
});

describe("freezeBuiltMessages", () => {
  /** Messages holding every kind of block, with JSON nested in each field that may hold it. */
  function built(): Message[] {
    const extra = { langchain: { shape: { type: "text", nested: [{ deep: [1] }] } } };
    const turnId = { owner: "u", number: 1 };
    const createdAt = new Date(0);
    const base = { sessionId: "s", turnId, createdAt };
    return [
      {
        ...base,
        role: "user",
        id: "a",
        content: [
          { type: "text", text: "hi", extra },
          { type: "image", source: { type: "url", url: "https://x/y.png" }, extra: { a: [{}] } },
          { type: "opaque", block: { type: "x", inner: { list: [{ n: 1 }] } } },
        ],
      },
      {
        ...base,
        role: "assistant",
        id: "b",
        content: [
          { type: "thinking", thinking: "t", signature: "s", extra: { k: { v: [] } } },
          { type: "redacted_thinking", data: "d", extra: { k: {} } },
          { type: "tool_use", id: "t1", name: "read", input: { path: { parts: ["a"] } } },
        ],
      },
      {
        ...base,
        role: "user",
        id: "c",
        generated: "notice",
        content: [
          {
            type: "tool_result",
            toolUseId: "t1",
            isError: false,
            content: [
              { type: "text", text: "x", extra: { k: [{}] } },
              { type: "image", source: { type: "base64", mediaType: "image/png", data: "" } },
              { type: "opaque", block: { type: "y", more: { z: [{}] } } },
            ],
            extra: { langchain: { message: { artifact: { rows: [[1]] } } } },
          },
        ],
      },
    ] as Message[];
  }

  it("ends on a value met twice or through a cycle (each branch back to its root), freezing all of it", () => {
    const knot: Record<string, unknown> = { leaf: { x: 1 } };
    for (const key of ["a", "b", "c", "d"]) knot[key] = knot;
    const shared = { y: [2] };
    const message = {
      role: "user",
      id: "k",
      sessionId: "s",
      turnId: { owner: "u", number: 1 },
      createdAt: new Date(0),
      content: [
        { type: "opaque", block: knot },
        { type: "text", text: "t", extra: { one: shared, two: shared } },
      ],
    } as unknown as Message;
    freezeBuiltMessages([message]);
    for (const item of objectsOf(message)) expect(Object.isFrozen(item)).toBe(true);
  });

  it("freezes every object of messages of the shapes Message defines, and freezeMessages knows them", () => {
    const messages = built();
    freezeBuiltMessages(messages);
    const all = objectsOf(messages).filter((each) => each !== messages);
    expect(all.length).toBeGreaterThan(40);
    for (const item of all) expect(Object.isFrozen(item)).toBe(true);
    freezeMessages(messages);
    freezeBuiltMessages(messages);
    expect(Object.isFrozen(messages)).toBe(false);
  });
});
