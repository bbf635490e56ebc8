import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { INTERRUPTED_NOTICE } from "../core/interrupted-calls.js";
import { compactLangChainMessages, fromLangChainMessages, toLangChainMessages } from "./index.js";

// What a review of the stateless path found in compactLangChainMessages' input: each case failed
// (a TypeError, a wrong source, a history emptied) before its fix.

/** A system prompt, a request, `reads` read exchanges, the last reply reporting `usage`. */
function reads(reads: number, usage?: Record<string, number>): BaseMessage[] {
  const messages: BaseMessage[] = [
    new SystemMessage({ content: "You are an agent.", id: "sys" }),
    new HumanMessage({ content: "Fix the build.", id: "req" }),
  ];
  for (let at = 0; at < reads; at += 1) {
    messages.push(
      new AIMessage({
        id: `a${at}`,
        content: `Reading ${at}.`,
        tool_calls: [{ id: `c${at}`, name: "read", args: { at }, type: "tool_call" }],
        ...(usage !== undefined && at === reads - 1 ? { usage_metadata: usage as never } : {}),
      }),
      new ToolMessage({ id: `t${at}`, tool_call_id: `c${at}`, content: "code;\n".repeat(1200) }),
    );
  }
  return messages;
}

describe("compactLangChainMessages' input", () => {
  it("measures what follows the last reply as the intake took it: a paste clamped counts clamped", async () => {
    const messages = reads(10, { input_tokens: 20_000, output_tokens: 50, total_tokens: 20_050 });
    messages.push(
      new AIMessage({ id: "done", content: "Done." }),
      new HumanMessage({ id: "paste", content: "log line\n".repeat(200_000) }),
    );
    const { messages: out, contextUsed } = await compactLangChainMessages(messages, {
      contextLimit: 100_000,
    });
    // The paste is cut to a quarter of the window; the reply's 20k and that fit: nothing dropped.
    expect(contextUsed).toBeLessThan(60_000);
    expect(out.map((message) => message.id)).toEqual(messages.map((message) => message.id));
  });

  it("refuses a usage_metadata the session would refuse, naming it", async () => {
    for (const input_tokens of [1e20, 1e308]) {
      const messages = reads(20, { input_tokens, output_tokens: 0, total_tokens: 0 });
      await expect(compactLangChainMessages(messages, { contextLimit: 100_000 })).rejects.toThrow(
        /\[40\]\.usage_metadata/,
      );
    }
  });

  it("refuses a field nested deeper than a message may hold once kept under extra", async () => {
    let deep: unknown = 1;
    for (let level = 0; level < 254; level += 1) deep = { a: deep };
    const messages = [
      new HumanMessage({ content: [{ type: "text", text: "hi", meta: deep }] as never, id: "h" }),
    ];
    await expect(compactLangChainMessages(messages, { contextLimit: 1_000 })).rejects.toThrow(
      /nests deeper than 256 levels/,
    );
    // With a paste the intake clamps beside it too (the check ran only on unclamped messages).
    const pasted = [...messages, new HumanMessage({ content: "log\n".repeat(100_000), id: "p" })];
    await expect(compactLangChainMessages(pasted, { contextLimit: 10_000 })).rejects.toThrow(
      /nests deeper than 256 levels/,
    );
  });

  it("keeps a field nested as deep as a message may hold, copied quickly or walked", async () => {
    // Up to 64 levels the conversion's quick copy takes it (trusted); deeper, its full walk.
    for (const levels of [62, 63, 64, 65, 200]) {
      let deep: unknown = 1;
      for (let level = 0; level < levels; level += 1) deep = { a: deep };
      const messages = [
        new HumanMessage({ content: [{ type: "text", text: "hi", meta: deep }] as never, id: "h" }),
      ];
      const out = await compactLangChainMessages(messages, { contextLimit: 1_000 });
      expect(out.messages).toBe(messages);
    }
  });

  it("reads each field of a part once: a getter's second answer is never what was kept", async () => {
    let reads = 0;
    let signatures = 0;
    const flaky = {
      type: "text",
      get text() {
        reads += 1;
        return reads === 1 ? "hi" : 42;
      },
    };
    const signed = new Proxy(
      { type: "thinking", thinking: "t", signature: "sig" },
      {
        get: (target, key) =>
          key === "signature" && ++signatures > 1 ? 7 : Reflect.get(target, key),
      },
    );
    const messages = [
      new HumanMessage({ content: [{ type: "text", text: "first" }, flaky] as never, id: "h" }),
      new AIMessage({ content: [signed, { type: "text", text: "x" }] as never, id: "a" }),
    ];
    const converted = fromLangChainMessages(messages);
    expect(converted[0]!.content[1]).toEqual({ type: "text", text: "hi" });
    expect(converted[1]!.content[0]).toEqual({ type: "thinking", thinking: "t", signature: "sig" });
    const out = await compactLangChainMessages(messages, { contextLimit: 1_000 });
    expect(Number.isFinite(out.contextUsed)).toBe(true);
  });

  // Review 57d: a getter that threw deep in a message (a call's args, a part, the message's
  // own `tool_calls` or `usage_metadata`) let its own error through, where the AI SDK's
  // conversion names the message.
  it("names the message whose getter throws, with its error as the cause, on every entry", async () => {
    const boom = new Error("boom");
    const throwing = <T extends object>(target: T, key: string): T =>
      Object.defineProperty(target, key, {
        enumerable: true,
        get: () => {
          throw boom;
        },
      });
    const cases: [number, () => BaseMessage[]][] = [
      [
        1,
        () => [
          new HumanMessage("x"),
          new AIMessage({
            content: "",
            tool_calls: [{ id: "c", name: "t", args: { a: throwing({}, "d") } }],
          }),
          new ToolMessage({ content: "ok", tool_call_id: "c" }),
        ],
      ],
      [0, () => [new HumanMessage({ content: [throwing({ type: "text" }, "text")] as never })]],
      [
        1,
        () => [
          new HumanMessage("x"),
          throwing(
            new AIMessage({ content: "", tool_calls: [{ id: "c", name: "t", args: {} }] }),
            "tool_calls",
          ),
          new ToolMessage({ content: "ok", tool_call_id: "c" }),
          new HumanMessage("y"),
        ],
      ],
      [
        1,
        () => [new HumanMessage("x"), throwing(new AIMessage({ content: "hi" }), "usage_metadata")],
      ],
    ];
    for (const [at, make] of cases) {
      for (const entry of [
        async () => fromLangChainMessages(make()),
        () => compactLangChainMessages(make(), { contextLimit: 100_000 }),
      ]) {
        const refused = await entry().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(ValidationError);
        expect((refused as ValidationError).issues).toEqual([
          { path: [at], message: "could not be read (a getter or proxy threw)" },
        ]);
        expect((refused as ValidationError).cause).toBe(boom);
      }
    }
  });

  it("keeps an own __proto__ key of a part as one (JSON.parse makes them)", () => {
    for (const value of ['{"x":1}', "null", '"s"']) {
      const part = JSON.parse(`{"type":"text","text":"hi","__proto__":${value}}`);
      const [message] = fromLangChainMessages([new HumanMessage({ content: [part], id: "h" })]);
      const [back] = toLangChainMessages([message!]);
      const [block] = back!.content as Record<string, unknown>[];
      expect(Object.hasOwn(block!, "__proto__")).toBe(true);
      expect(JSON.stringify(block)).toBe(JSON.stringify(part));
    }
  });

  it("names a hole in the messages or in a content array, never a TypeError or an undefined", async () => {
    const holed: BaseMessage[] = [new HumanMessage({ content: "a", id: "h0" })];
    holed[2] = new HumanMessage({ content: "b", id: "h2" });
    const content: unknown[] = [];
    content[1] = { type: "text", text: "x" };
    const calls: unknown[] = [];
    calls[1] = { id: "c1", name: "read", args: {}, type: "tool_call" };
    for (const messages of [
      holed,
      [{ type: "human", content, id: "h" }],
      [{ type: "ai", content, id: "a" }],
      [{ type: "ai", content: "", tool_calls: calls, id: "a" }],
      [
        new HumanMessage({ content: "go", id: "h" }),
        new AIMessage({ content: "", id: "a", tool_calls: [{ id: "c1", name: "f", args: {} }] }),
        { type: "tool", tool_call_id: "c1", content, id: "t" },
      ],
    ])
      await expect(
        compactLangChainMessages(messages as never, { contextLimit: 100_000 }),
      ).rejects.toThrow(ValidationError);
  });

  it("gives each result of a call id its own message back", async () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ content: "go", id: "h" }),
      new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c1", name: "read", args: {} }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", content: "first", artifact: { k: 1 } }),
      // A server that numbers calls per response (`call_0` in each) takes the id again.
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read", args: {} }] }),
      new ToolMessage({
        id: "t2",
        tool_call_id: "c1",
        content: "z".repeat(400_000),
        artifact: { k: 2 },
      }),
      new AIMessage({ id: "a2", content: "done" }),
    ];
    const { messages: out } = await compactLangChainMessages(messages, { contextLimit: 200_000 });
    const tools = out.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    expect(tools[0]).toBe(messages[2]);
    // The second, clamped, keeps its own id and artifact (it took the first's before).
    expect([tools[1]!.id, tools[1]!.artifact]).toEqual(["t2", { k: 2 }]);
    expect(tools[1]!.text.length).toBeLessThan(400_000);
  });

  it("tells a second result of one call as text: the Chat Completions and Responses APIs refuse it", async () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ content: "go", id: "h" }),
      new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c1", name: "read", args: {} }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", content: "first" }),
      new ToolMessage({ id: "t2", tool_call_id: "c1", content: "second" }),
      new AIMessage({ id: "a2", content: "done" }),
    ];
    const { messages: out } = await compactLangChainMessages(messages, { contextLimit: 200_000 });
    expect(out.filter((message) => ToolMessage.isInstance(message))).toEqual([messages[2]]);
    const told = out[3]!;
    expect([told.getType(), told.text]).toEqual([
      "human",
      "[Another result of a tool call answered already: c1]\nsecond",
    ]);
    expect(out[4]).toBe(messages[4]);
  });

  it("closes many interrupted calls without overflowing the stack, and names errors where the caller put them", async () => {
    const calls = Array.from({ length: 200_000 }, (_, at) => ({
      id: `c${at}`,
      name: "f",
      args: {},
    }));
    const many = [
      { type: "human", content: "go" },
      { type: "ai", content: "", tool_calls: calls },
      { type: "human", content: "again" },
    ];
    const { messages } = await compactLangChainMessages(many as never, {
      contextLimit: 200_000_000,
    });
    expect(messages).toHaveLength(200_003);
    const malformed = [...many.slice(0, 3), { type: "human", content: 42 }];
    await expect(
      compactLangChainMessages(malformed as never, { contextLimit: 200_000_000 }),
    ).rejects.toThrow(/^Invalid LangChain messages: \[3\]\.content/);
    // Bad options are named first, as when no call is closed.
    await expect(
      compactLangChainMessages(malformed as never, { contextLimit: -1 }),
    ).rejects.toThrow(/options/);
  });

  it("closes calls without ids, so two interrupted calls may share one", async () => {
    const call = { id: "call_0", name: "f", args: {} };
    const messages = [
      { type: "human", content: "go" },
      { type: "ai", content: "", tool_calls: [call] },
      { type: "human", content: "stop, do this" },
      { type: "ai", content: "ok", tool_calls: [call] },
      { type: "human", content: "and this" },
    ];
    const { messages: out } = await compactLangChainMessages(messages as never, {
      contextLimit: 100_000,
    });
    const closings = out.filter((message) => message.type === "tool");
    expect(closings.map((message) => [message.id, message.content])).toEqual([
      [undefined, INTERRUPTED_NOTICE],
      [undefined, INTERRUPTED_NOTICE],
    ]);
  });
});
