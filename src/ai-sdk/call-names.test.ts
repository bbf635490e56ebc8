import type { ModelMessage } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContentBlock, Message } from "../core/message.js";
import { CallNames } from "./call-names.js";
import { fromModelMessages, writeModelMessages } from "./model-messages.js";

/** The lookup as it was before the table of a large message: every result scanned the message. */
function scanningGet(
  messages: readonly Message[],
  position: number,
  lastAssistant: number,
  toolUseId: string,
): string | undefined {
  const near = messages[lastAssistant]?.content ?? [];
  for (let index = near.length - 1; index >= 0; index -= 1) {
    const block = near[index]!;
    if (block.type === "tool_use" && block.id === toolUseId) return block.name;
  }
  let name: string | undefined;
  for (const message of messages.slice(0, position)) {
    if (message.role !== "assistant") continue;
    for (const block of message.content)
      if (block.type === "tool_use" && block.id === toolUseId) name = block.name;
  }
  return name;
}

const ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
const block = fc.oneof(
  fc.record({
    type: fc.constant("tool_use" as const),
    id: fc.constantFrom(...ids),
    name: fc.constantFrom("read", "write", "run"),
    input: fc.constant({}),
  }),
  fc.constant({ type: "text" as const, text: "x" }),
);
const message = fc.record({
  role: fc.constantFrom("user" as const, "assistant" as const),
  // Past 16 blocks a message's calls are looked up in a table: both sides of it.
  content: fc.array(block, { maxLength: 40 }),
});

/** Messages whose contents count each block read. */
function counted(messages: Message[]): { messages: Message[]; reads: () => number } {
  let reads = 0;
  const wrapped = messages.map((entry) => ({
    ...entry,
    content: new Proxy(entry.content, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver);
      },
    }),
  })) as Message[];
  return { messages: wrapped, reads: () => reads };
}

const base = { id: "m", sessionId: "s", turnId: "t", createdAt: 0 };

/** One assistant message of `count` calls, answered one by one as a conversion asks. */
function answerAll(count: number): { names: (string | undefined)[]; reads: number } {
  const content: ContentBlock[] = Array.from({ length: count }, (_, index) => ({
    type: "tool_use",
    id: `call_${index}`,
    name: `tool_${index}`,
    input: {},
  }));
  const { messages, reads } = counted([
    { ...base, role: "assistant", content } as unknown as Message,
    { ...base, role: "user", content: [] } as unknown as Message,
  ]);
  const calls = new CallNames(messages);
  calls.lastAssistant = 0;
  calls.position = 1;
  const names = content.map((_, index) => calls.get(`call_${index}`));
  return { names, reads: reads() };
}

describe("CallNames", () => {
  it("names each result's call as the scan of the latest assistant message did", () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.array(fc.constantFrom(...ids, "z"), { minLength: 1, maxLength: 6 }),
        (drawn, asked) => {
          const messages = drawn.map((entry) => ({ ...base, ...entry }) as unknown as Message);
          const calls = new CallNames(messages);
          // As a conversion moves: each message's results asked, then it becomes the latest.
          for (let position = 0; position <= messages.length; position += 1) {
            calls.position = position;
            for (const id of asked)
              expect(calls.get(id)).toBe(scanningGet(messages, position, calls.lastAssistant, id));
            if (messages[position]?.role === "assistant") calls.lastAssistant = position;
          }
        },
      ),
    );
  });

  it("reads a large message's calls once, not once per result: work linear in the calls", () => {
    const small = answerAll(1_000);
    const large = answerAll(4_000);
    expect(small.names).toEqual(Array.from({ length: 1_000 }, (_, index) => `tool_${index}`));
    expect(large.names[3_999]).toBe("tool_3999");
    // Linear work grows 4x with 4x the calls, quadratic 16x: the table reads each call once.
    expect(large.reads).toBeLessThanOrEqual(4 * small.reads);
    expect(large.reads).toBeLessThanOrEqual(2 * 4_000);
  });
});

describe("fromModelMessages with many calls in one message", () => {
  it("finds each result's call, the latest of two with one id", () => {
    const count = 2_000;
    const parts = Array.from({ length: count }, (_, index) => ({
      type: "tool-call" as const,
      toolCallId: `call_${index}`,
      toolName: `tool_${index}`,
      input: {},
    }));
    // A repeated id: the later call names its result.
    parts.push({ type: "tool-call", toolCallId: "call_0", toolName: "again", input: {} });
    const results = parts.slice(1).map((part) => ({
      type: "tool-result" as const,
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      output: { type: "text" as const, value: "ok" },
    }));
    const messages: ModelMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: parts },
      { role: "tool", content: results },
    ];
    const converted = fromModelMessages(messages);
    const blocks = converted[2]!.content;
    expect(blocks).toHaveLength(count);
    // A result whose call names its tool keeps nothing beside it.
    for (const result of blocks) expect(result).not.toHaveProperty("extra");
  });
});

/** The tool name of each result in `messages`, in order, from a table of every call before it. */
function tabledNames(messages: readonly Message[]): string[] {
  const table = new Map<string, string>();
  const names: string[] = [];
  for (const { content } of messages)
    for (const block of content) {
      if (block.type === "tool_use") table.set(block.id, block.name);
      else if (block.type === "tool_result") names.push(table.get(block.toolUseId) ?? "unknown");
    }
  return names;
}

const written = fc.record({
  role: fc.constantFrom("user" as const, "assistant" as const),
  // Calls and results in either role, a result after its call in one message, ids reused;
  // past 16 calls a message's calls are looked up in a table: both sides of it.
  content: fc.array(
    fc.oneof(
      block,
      fc.record({
        type: fc.constant("tool_result" as const),
        toolUseId: fc.constantFrom(...ids, "z"),
        content: fc.constant("ok"),
        isError: fc.constant(false),
      }),
    ),
    { minLength: 1, maxLength: 40 },
  ),
});

describe("writeModelMessages' tool names", () => {
  it("name each result as a table of every call written before it did", () => {
    fc.assert(
      fc.property(fc.array(written, { maxLength: 10 }), (drawn) => {
        const messages = drawn.map(
          (entry, index) =>
            ({
              ...base,
              id: `m${index}`,
              turnId: { owner: "u", number: 1 },
              createdAt: new Date(0),
              ...entry,
            }) as unknown as Message,
        );
        const names = writeModelMessages(messages).flatMap((message) =>
          typeof message.content === "string"
            ? []
            : message.content.flatMap((part) =>
                part.type === "tool-result" ? [part.toolName] : [],
              ),
        );
        expect(names).toEqual(tabledNames(messages));
      }),
    );
  });
});
