import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { TextBlock, ToolResultBlock, ToolUseBlock } from "../core/message.js";
import { CompactionMemory } from "../store/index.js";
import { compactResponsesInput } from "./compact-input.js";
import { fromResponsesInput } from "./responses-input.js";

/**
 * Items whose fields are getters (review 58b's leftover): the reading asked an item's `type`,
 * `role` and `content` twice, so a getter that answers once and then throws gave a raw `Error`,
 * and one that throws at once a raw `Error` too. Each field of the common items is read once
 * now, and a getter that throws is bad input like any other: a `ValidationError` naming the
 * item, its error the `cause` (as the AI SDK's and LangChain's conversions do).
 */

/** A getter that answers `value` once, then throws. */
function once(value: unknown): () => unknown {
  let reads = 0;
  return () => {
    reads += 1;
    if (reads > 1) throw new Error("read twice");
    return value;
  };
}

/** `target` with a getter named `key`. */
function withGetter<T extends object>(target: T, key: string, read: () => unknown): T {
  return Object.defineProperty(target, key, { get: read, enumerable: true });
}

const asInput = (items: object[]) => items as ResponseInputItem[];
const call = { type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"a.ts"}' };
const output = { type: "function_call_output", call_id: "c1", output: "done" };

/** The common items, each with one field a getter that answers once. */
function onceRead(): [string, object[]][] {
  const part = { type: "output_text", text: "hi", annotations: [] };
  return [
    ["a message's type", [withGetter({ role: "user", content: "hi" }, "type", once("message"))]],
    ["a message's role", [withGetter({ type: "message", content: "hi" }, "role", once("user"))]],
    [
      "a message's content",
      [withGetter({ type: "message", role: "assistant" }, "content", once([part]))],
    ],
    [
      "a call's type",
      [
        withGetter(
          { call_id: "c1", name: "read", arguments: '{"path":"a.ts"}' },
          "type",
          once("function_call"),
        ),
        output,
      ],
    ],
    [
      "an output's type",
      [call, withGetter({ call_id: "c1", output: "done" }, "type", once("function_call_output"))],
    ],
  ];
}

describe("getters that answer once", () => {
  it("are read once: the items read as they answered", () => {
    for (const [what, items] of onceRead()) {
      const messages = fromResponsesInput(asInput(items), { sessionId: "s" });
      const first = messages[0]!.content[0]!;
      if (first.type === "text") expect((first as TextBlock).text, what).toBe("hi");
      else expect((first as ToolUseBlock).input, what).toEqual({ path: "a.ts" });
      if (items.length > 1)
        expect((messages[1]!.content[0] as ToolResultBlock).content, what).toBe("done");
    }
  });

  it("through compactResponsesInput, with a memory or without", async () => {
    // A memory of its own for each (one holding a conversation the items start like compares
    // them first: a read before the conversion's).
    for (const remember of [false, true])
      for (const [what, items] of onceRead()) {
        const memory = new CompactionMemory();
        const options = { contextLimit: 10_000, ...(remember ? { memory } : {}) };
        const done = await compactResponsesInput(asInput(items), options);
        expect(done.compacted, what).toBe(false);
        expect(done.messages, what).toBe(items);
      }
  });
});

describe("getters that throw", () => {
  const boom = new Error("boom");
  const throwing = () => {
    throw boom;
  };

  it("are a ValidationError naming the item, the getter's error its cause", async () => {
    const cases: object[][] = [
      [withGetter({ role: "user", content: "hi" }, "type", throwing)],
      [
        { role: "user", content: "hi" },
        withGetter({ type: "message", content: "x" }, "role", throwing),
      ],
      [withGetter({ type: "message", role: "user" }, "content", throwing)],
      [withGetter({ type: "function_call", name: "n", arguments: "{}" }, "call_id", throwing)],
      [new Proxy({ role: "system", content: "s" }, { ownKeys: throwing })],
    ];
    for (const items of cases) {
      const at = items.length - 1;
      const runs: (() => Promise<unknown>)[] = [
        async () => fromResponsesInput(asInput(items)),
        () => compactResponsesInput(asInput(items), { contextLimit: 10_000 }),
      ];
      for (const run of runs) {
        const error = await run().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).message).toBe(
          `Invalid Responses input: [${at}]: could not be read (a getter or proxy threw)`,
        );
        expect((error as ValidationError).cause).toBe(boom);
      }
    }
  });
});
