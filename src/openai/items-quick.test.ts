import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commonBlocks, keyOrder, objectsIn, tidy } from "../../test/support/quick-path.js";
import type { ValidationIssue } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import { quickCallBlock, quickMessageBlocks, quickOutputBlock } from "./items-quick.js";
import { pushQuickItems } from "./items-quick-out.js";
import { fromResponsesInput, itemBlocks, readItems } from "./responses-input.js";
import { ItemWriter, toResponsesInput, writeBlock } from "./responses-output.js";

/** Values a field may hold: the quick reading's shapes, and near misses. */
const field = fc.oneof(
  fc.constantFrom("", "x", "{}", '{"path":"a.ts"}', 0, true, null, undefined, [], [{}]),
  fc.string({ maxLength: 6 }),
  fc.constantFrom(Number.NaN, () => 1, new Date(0)),
  fc.dictionary(fc.constantFrom("path", "n", "__proto__"), fc.oneof(fc.string(), fc.integer())),
);

/** `values`, sometimes with a field more (a near miss of the quick shapes), keys shuffled. */
function nearly<T extends object>(values: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return values
    .chain((base) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(base) },
        fc
          .constantFrom("id", "status", "extra")
          .chain((key) => fc.record({ [key]: field }))
          .map((more) => ({ ...base, ...more })),
        fc
          .record({ id: fc.string({ maxLength: 3 }), status: fc.constant("completed") })
          .map((more) => ({ ...more, ...base })),
      ),
    )
    .chain((value) =>
      fc
        .shuffledSubarray(Object.keys(value), { minLength: Object.keys(value).length })
        .map(
          (keys) =>
            Object.fromEntries(
              keys.map((key) => [key, (value as Record<string, unknown>)[key]]),
            ) as T,
        ),
    );
}

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('{"a":1}', "[]", "1"));

/** `arguments` texts: JSON objects written as JSON.stringify does and otherwise, and not. */
const argumentsText = fc.oneof(
  text,
  fc
    .dictionary(fc.constantFrom("path", "n", "1", "__proto__"), fc.jsonValue({ maxDepth: 2 }))
    .map((input) => JSON.stringify(input)),
  fc.constantFrom(
    ...['{"path": "a.ts"}', '{"a":1,"a":2}', '{"b":1,"1":2}', '{"n":1.50}', '{"n":-0}'],
    ...['{"s":"\\u00e9"}', '{"s":"\\/"}', '{"s":"\ud800"}', "{}", "null", '{"a":[1,{"b":2}]}'],
  ),
);

/** The quick reading of one item: its blocks, or `undefined` when it leaves the item. */
function quickBlocks(item: Record<string, unknown>): ContentBlock[] | undefined {
  const { type } = item;
  if ((type ?? "message") === "message")
    return quickMessageBlocks(item, type, item["role"], item["content"]);
  const block =
    type === "function_call"
      ? quickCallBlock(item, type, { tokens: 0 })
      : type === "function_call_output"
        ? quickOutputBlock(item, type)
        : undefined;
  return block === undefined ? undefined : [block];
}
const part = fc.oneof(
  nearly(fc.record({ type: fc.constant("input_text"), text })),
  nearly(fc.record({ type: fc.constant("output_text"), text })),
  nearly(
    fc.record({
      type: fc.constant("output_text"),
      text,
      annotations: fc.oneof(fc.constant([]), field),
    }),
  ),
  nearly(fc.record({ type: fc.constantFrom("input_text", "refusal", "input_image"), text: field })),
  field,
);

const item = fc.oneof(
  nearly(
    fc.record(
      {
        type: fc.constant("message"),
        role: fc.constantFrom("user", "assistant", "system"),
        content: fc.oneof(text, fc.array(part, { maxLength: 3 }), field),
      },
      { requiredKeys: ["role", "content"] },
    ),
  ),
  nearly(
    fc.record({
      type: fc.constant("function_call"),
      call_id: fc.oneof(fc.constantFrom("c1", "c2"), field),
      name: fc.oneof(fc.constantFrom("read", "grep"), field),
      arguments: fc.oneof(argumentsText, field),
    }),
  ),
  nearly(
    fc.record({
      type: fc.constant("function_call_output"),
      call_id: fc.oneof(fc.constantFrom("c1", "c2"), field),
      output: fc.oneof(text, field),
    }),
  ),
  nearly(fc.record({ type: fc.constantFrom("reasoning", "custom_tool_call"), id: field })),
);

describe("the quick reading: the common Responses items read without the full reading", () => {
  it("reads an item as the full reading does (key order), sharing nothing, or leaves it", () => {
    let taken = 0;
    fc.assert(
      fc.property(item, (value) => {
        const quick = quickBlocks(value as Record<string, unknown>);
        if (quick === undefined) return;
        taken += 1;
        const issues: ValidationIssue[] = [];
        const full = itemBlocks({ issues, path: [0] }, value as Record<string, unknown>);
        expect(issues).toEqual([]);
        expect(keyOrder(quick)).toEqual(keyOrder(full));
        const theirs = objectsIn(value);
        for (const ours of objectsIn(quick)) expect(theirs.has(ours)).toBe(false);
      }),
      { seed: 3_100_509, numRuns: 4000 },
    );
    expect(taken).toBeGreaterThan(400);
  });

  it("takes the common shapes, and leaves the rest to the full reading", () => {
    const part = { type: "output_text", text: "hi", annotations: [] };
    expect(quickBlocks({ role: "user", content: "hi" })).toBeDefined();
    expect(quickBlocks({ type: "message", role: "assistant", content: [part] })).toBeDefined();
    const call = { type: "function_call", call_id: "c1", name: "read", arguments: "{}" };
    expect(quickBlocks(call)).toBeDefined();
    const output = { type: "function_call_output", call_id: "c1", output: "ok" };
    expect(quickBlocks(output)).toBeDefined();
    expect(quickBlocks({ role: "system", content: "be brief" })).toBeUndefined();
    expect(quickBlocks({ ...output, output: [] })).toBeUndefined();
    expect(quickBlocks({ ...call, call_id: "" })).toBeUndefined();
  });

  it("reads a conversation to the same messages (key order) or errors as the full reading, sharing nothing", () => {
    const options = { sessionId: "s", clock: () => new Date(0) };
    const read = (items: unknown[], quick: boolean) => {
      try {
        return readItems(items, options, quick).map((message, index) => ({
          ...message,
          id: index,
        }));
      } catch (error) {
        return error;
      }
    };
    let read_ = 0;
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), (items) => {
        const quick = read(items, true);
        const full = read(items, false);
        if (!Array.isArray(quick)) {
          expect((quick as { issues: unknown }).issues).toEqual(
            (full as { issues: unknown }).issues,
          );
          return;
        }
        read_ += 1;
        expect(keyOrder(quick)).toEqual(keyOrder(full));
        expect(quick).toEqual(full);
        const theirs = objectsIn(items);
        for (const ours of objectsIn(quick)) expect(theirs.has(ours)).toBe(false);
        for (const ours of objectsIn(full)) expect(theirs.has(ours)).toBe(false);
      }),
      { seed: 3_100_523, numRuns: 2000 },
    );
    expect(read_).toBeGreaterThan(200);
  });

  it("gives each message of a run of items its own content array, of its blocks only", () => {
    const call = (id: string) => ({
      type: "function_call",
      call_id: id,
      name: "read",
      arguments: "{}",
    });
    const output = (id: string) => ({ type: "function_call_output", call_id: id, output: "ok" });
    const said = (text: string) => ({
      type: "message",
      role: "assistant",
      content: [
        { type: "output_text", text, annotations: [] },
        { type: "output_text", text: `${text}2`, annotations: [] },
      ],
    });
    const input = [
      { role: "user", content: "go" },
      said("a"),
      call("c1"),
      call("c2"),
      { type: "reasoning", id: "r1", summary: [] },
      call("c3"),
      output("c1"),
      output("c2"),
      output("c3"),
      said("b"),
      call("c4"),
      output("c4"),
      { role: "developer", content: "be brief" },
      call("c5"),
      said("c"),
    ];
    for (const quick of [true, false]) {
      const messages = readItems(input, { sessionId: "s" }, quick);
      const contents = messages.map((message) => message.content);
      expect(contents.map((content) => content.map((block) => block.type))).toEqual([
        ["text"],
        ["text", "text", "tool_use", "tool_use", "opaque", "tool_use"],
        ["tool_result", "tool_result", "tool_result"],
        ["text", "text", "tool_use"],
        ["tool_result"],
        ["opaque"],
        ["tool_use", "text", "text"],
      ]);
      expect(new Set(contents).size).toBe(contents.length);
      expect(toResponsesInput(messages)).toEqual(input);
    }
  });

  it("gives the same messages and the same errors through fromResponsesInput", () => {
    const options = { sessionId: "s", clock: () => new Date(0) };
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), (items) => {
        let quick: unknown;
        try {
          quick = fromResponsesInput(items, options);
        } catch (error) {
          quick = error;
        }
        const issues: ValidationIssue[] = [];
        items.forEach((each, index) => {
          itemBlocks({ issues, path: [index] }, each as Record<string, unknown>);
        });
        if (Array.isArray(quick)) expect(issues).toEqual([]);
        else expect((quick as { issues: unknown }).issues).toEqual(issues);
      }),
      { seed: 3_100_517, numRuns: 1000 },
    );
  });
});

/** Responses fields a block may keep: none, the quick writing's, and others. */
const strings = fc.oneof(
  fc.dictionary(fc.constantFrom("role", "id", "status", "__proto__"), fc.string(), { maxKeys: 2 }),
  fc.record({
    type: fc.constantFrom("message", "function_call", "function_call_output", "custom_tool_call"),
    id: fc.constantFrom("it_1", ""),
  }),
  // The shapes the quick writing builds as one literal: `{ type }`, `{ type, role }`.
  fc.record(
    {
      type: fc.constantFrom("message", "function_call", "function_call_output", "reasoning"),
      role: fc.constantFrom("user", "assistant"),
    },
    { requiredKeys: ["type"] },
  ),
);
const openaiFields = fc.oneof(
  fc.constant(undefined),
  fc.record({ openai: fc.record({ item: strings, content: fc.constant("string") }) }),
  fc.record({
    openai: fc.record(
      {
        item: fc.oneof(strings, fc.constant({ type: "function_call", id: "fc_1" })),
        part: fc.oneof(
          fc.constant({ type: "output_text", annotations: [] }),
          fc.constant({ annotations: [], type: "output_text" }),
          strings,
        ),
        arguments: text,
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    openai: fc.record(
      { continues: fc.constantFrom(true, false), part: fc.oneof(strings, field) },
      { requiredKeys: ["continues"] },
    ),
  }),
  fc.record({
    openai: nearly(
      fc.record(
        { item: field, content: field, continues: field, part: field, arguments: field },
        { requiredKeys: [] },
      ),
    ),
  }),
  fc.record({ other: field }),
);

const block = fc.oneof(
  ...commonBlocks(text, openaiFields),
  fc.constant({ type: "thinking", thinking: "t", signature: "s" }),
);

/** The quick writing of one message onto a list holding an item already: what it added. */
function quickItems(message: Message): unknown[] | undefined {
  const before = { type: "message", role: "user", content: "before" };
  const items = [before];
  const taken = pushQuickItems(message, items);
  expect(items[0]).toBe(before);
  if (!taken) expect(items).toEqual([before]);
  return taken ? items.slice(1) : undefined;
}

describe("pushQuickItems: the common messages written without the full writing's state", () => {
  it("writes a message as the full writing does (key order), or leaves it to it", () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.constantFrom("user", "assistant"),
        fc.array(block.map(tidy), { maxLength: 5 }),
        (role, content) => {
          const message = { role, content } as unknown as Message;
          const quick = quickItems(message);
          if (quick === undefined) return;
          taken += 1;
          const writer = new ItemWriter();
          for (const each of message.content) writeBlock(writer, each, message.role);
          expect(keyOrder(quick)).toEqual(keyOrder(writer.items));
          const ours = objectsIn(message);
          for (const object of objectsIn(quick)) expect(ours.has(object)).toBe(false);
        },
      ),
      { seed: 3_100_541, numRuns: 8000 },
    );
    expect(taken).toBeGreaterThan(300);
  });

  it("writes the library's own texts (no Responses fields) quickly, joined as the full writing joins them", () => {
    const text = (value: string) => ({ type: "text", text: value });
    const use = { type: "tool_use", id: "c1", name: "read", input: {} };
    for (const [role, content] of [
      ["user", [text("a")]],
      ["assistant", [text("a"), text("b"), use, text("c")]],
      ["user", [text("a"), { ...text("b"), extra: { openai: { continues: true } } }]],
    ] as const) {
      const message = { role, content } as unknown as Message;
      const writer = new ItemWriter();
      for (const each of message.content) writeBlock(writer, each, message.role);
      expect(quickItems(message)).toEqual(writer.items);
    }
  });

  it("does not join a part to an item a call came after", () => {
    const item = { type: "message", role: "assistant" };
    const content = [
      { type: "text", text: "a", extra: { openai: { item } } },
      { type: "tool_use", id: "c1", name: "read", input: {} },
      { type: "text", text: "b", extra: { openai: { continues: true } } },
    ];
    const message = { role: "assistant", content } as unknown as Message;
    const writer = new ItemWriter();
    for (const each of message.content) writeBlock(writer, each, message.role);
    const quick = quickItems(message);
    if (quick !== undefined) expect(quick).toEqual(writer.items);
    expect(writer.items).toHaveLength(3);
  });

  it("writes the kept `{ type }` and `{ type, role }` items as the full writing does", () => {
    const message = (content: unknown[]) => ({ role: "assistant", content }) as unknown as Message;
    const cases = [
      [{ type: "text", text: "a", extra: { openai: { item: { type: "message", role: "x" } } } }],
      [
        {
          type: "text",
          text: "a",
          extra: { openai: { item: { type: "message", role: "assistant" }, content: "string" } },
        },
      ],
      [
        {
          type: "tool_use",
          id: "c",
          name: "n",
          input: {},
          extra: { openai: { item: { type: "function_call" } } },
        },
      ],
      [
        {
          type: "tool_use",
          id: "c",
          name: "n",
          input: {},
          extra: { openai: { item: { type: "reasoning" } } },
        },
      ],
      [
        {
          type: "tool_result",
          toolUseId: "c",
          content: "ok",
          isError: false,
          extra: { openai: { item: { type: "x" } } },
        },
      ],
      [
        {
          type: "tool_result",
          toolUseId: "c",
          content: "ok",
          isError: false,
          extra: { openai: { item: { type: 1 } } },
        },
      ],
    ];
    const taken = cases.map((content) => {
      const quick = quickItems(message(content));
      const writer = new ItemWriter();
      for (const each of message(content).content) writeBlock(writer, each, "assistant");
      if (quick !== undefined) expect(keyOrder(quick)).toEqual(keyOrder(writer.items));
      return quick !== undefined;
    });
    expect(taken).toEqual([true, true, true, false, true, false]);
  });

  it("writes what the quick reading read back as it was", () => {
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
      {
        type: "message",
        role: "assistant",
        content: [
          { type: "output_text", text: "a", annotations: [] },
          { type: "output_text", text: "b", annotations: [] },
        ],
      },
      { type: "function_call", call_id: "c1", name: "read", arguments: '{"path": "a"}' },
      { type: "function_call_output", call_id: "c1", output: "ok" },
      { role: "user", content: "thanks" },
    ];
    const ours = fromResponsesInput(input);
    for (const message of ours) expect(quickItems(message)).toBeDefined();
    expect(toResponsesInput(ours)).toEqual(input);
  });
});
