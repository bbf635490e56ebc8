import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  commonBlocks,
  keyOrder,
  objectsIn,
  ourMessages,
  tidy,
} from "../../test/support/quick-path.js";
import type { ValidationIssue } from "../core/errors.js";
import type { ContentBlock, JsonObject, Message } from "../core/message.js";
import { fromChatMessages, readInFull, readQuickly } from "./chat-messages-in.js";
import { chatMessagesInFull, type ReasoningPolicy, toChatMessages } from "./chat-messages-out.js";
import { isQuickChatMessage } from "./messages-quick.js";
import { writeQuickChatMessage } from "./messages-quick-out.js";

/** Values a field may hold: the quick reading's shapes, and near misses. */
const field = fc.oneof(
  fc.constantFrom("", "x", "{}", '{"path":"a.ts"}', "[1]", 0, true, null, undefined, []),
  fc.string({ maxLength: 6 }),
  fc.constantFrom(Number.NaN, () => 1, new Date(0)),
  fc.dictionary(fc.constantFrom("path", "n", "__proto__"), fc.oneof(fc.string(), fc.integer())),
);

/** `values`, sometimes with a field more (a near miss of the quick shapes). */
function withExtra<T extends object>(values: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return values.chain((base) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(base) },
      fc.record({ extra: field }).map((more) => ({ ...base, ...more })),
    ),
  );
}

function objectOf(keys: readonly string[]) {
  return withExtra(
    fc.record(Object.fromEntries(keys.map((key) => [key, field])), { requiredKeys: [] }),
  );
}

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('{"a":1}', "[]", "1"));
const call = fc.oneof(
  {
    weight: 4,
    arbitrary: withExtra(
      fc.record({
        id: fc.constantFrom("c1", "c2"),
        type: fc.constant("function"),
        function: withExtra(fc.record({ name: fc.constantFrom("read", "grep"), arguments: text })),
      }),
    ),
  },
  fc.record({ id: field, type: field, function: fc.oneof(objectOf(["name", "arguments"]), field) }),
  objectOf(["id", "type", "custom", "function"]),
  field,
);

const message = fc.oneof(
  withExtra(fc.record({ role: fc.constant("user"), content: text })),
  withExtra(
    fc.record({
      role: fc.constant("tool"),
      tool_call_id: fc.constantFrom("c1", "c2"),
      content: text,
    }),
  ),
  fc.record(
    {
      role: fc.constant("assistant"),
      content: fc.oneof(text, fc.constant(null)),
      tool_calls: fc.array(call, { maxLength: 3 }),
    },
    { requiredKeys: ["role"] },
  ),
  fc
    .record({ role: fc.constantFrom("user", "tool", "assistant") })
    .chain(({ role }) =>
      objectOf(["content", "tool_call_id", "tool_calls", "name", "refusal", "reasoning"]).map(
        (rest) => ({ role, ...rest }),
      ),
    ),
  objectOf(["role", "content"]),
  fc.record({ role: fc.constantFrom("system", "developer", "function"), content: text }),
  field,
);

/** The messages read, each its role and blocks. */
function collected() {
  const read: { role: string; blocks: ContentBlock[] }[] = [];
  return {
    read,
    add(role: string, blocks: ContentBlock[]) {
      read.push({ role, blocks });
    },
  };
}

/**
 * What the conversion reads from `messages`: the quick way (the full reading going on where it
 * stops), and by the copy of the whole.
 */
function bothWays(messages: unknown[]) {
  const quickIssues: ValidationIssue[] = [];
  const quick = collected();
  const stopped = readQuickly(messages, quickIssues, quick);
  if (stopped < messages.length) readInFull(messages, quickIssues, quick, stopped);
  const fullIssues: ValidationIssue[] = [];
  const full = collected();
  readInFull(messages, fullIssues, full);
  return { quick: quick.read, quickIssues, full: full.read, fullIssues };
}

describe("readQuickly: the common chat messages read without a copy of the whole", () => {
  it("reads messages as the full reading does (key order, issues), sharing nothing", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
        const { quick, quickIssues, full, fullIssues } = bothWays(messages);
        expect(quickIssues).toEqual(fullIssues);
        expect(keyOrder(quick)).toEqual(keyOrder(full));
        const theirs = objectsIn(messages);
        for (const ours of objectsIn(quick)) expect(theirs.has(ours)).toBe(false);
      }),
      { seed: 3_100_401, numRuns: 3000 },
    );
  });

  it("takes the common shapes the quick way, and leaves the rest to the full reading", () => {
    const calls = [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }];
    expect(isQuickChatMessage({ role: "user", content: "hi" })).toBe(true);
    expect(isQuickChatMessage({ role: "assistant", content: null, tool_calls: calls })).toBe(true);
    expect(isQuickChatMessage({ role: "assistant", tool_calls: calls })).toBe(true);
    expect(isQuickChatMessage({ role: "tool", tool_call_id: "c1", content: "ok" })).toBe(true);
    expect(isQuickChatMessage({ role: "user", content: "hi", name: "ann" })).toBe(false);
    expect(isQuickChatMessage({ role: "user", content: [{ type: "text", text: "hi" }] })).toBe(
      false,
    );
    expect(isQuickChatMessage({ role: "tool", tool_call_id: "", content: "ok" })).toBe(false);
    expect(isQuickChatMessage({ role: "system", content: "be brief" })).toBe(false);
  });

  it("uses the very values it checked: a getter's next answer cannot slip past the check", () => {
    let reads = 0;
    const shifty = {
      role: "user",
      get content(): unknown {
        reads += 1;
        return reads <= 2 ? "hi" : { not: "text" };
      },
    };
    const call = { id: "c1", type: "function", function: { name: "read", arguments: "{}" } };
    const calls = {
      role: "assistant",
      get tool_calls(): unknown {
        reads += 1;
        return reads <= 2 ? [call] : [{ ...call, id: "" }];
      },
    };
    for (const message of [shifty, calls]) {
      reads = 0;
      const messages = fromChatMessages([message]);
      const blocks = messages[0]!.content;
      expect(blocks.length).toBe(1);
      const block = blocks[0]!;
      if (block.type === "text") expect(block.text).toBe("hi");
      else expect(block.type === "tool_use" && block.id).toBe("c1");
    }
  });

  it("makes no room ahead for a call list that only says it is long", () => {
    const call = { id: "c1", type: "function", function: { name: "read", arguments: "{}" } };
    const sparse: unknown[] = [call];
    sparse.length = 2 ** 32 - 1;
    expect(isQuickChatMessage({ role: "assistant", tool_calls: sparse })).toBe(false);
    expect(isQuickChatMessage({ role: "assistant", content: "x", tool_calls: sparse })).toBe(false);
    const many = Array.from({ length: 100 }, (_, index) => ({ ...call, id: `c${index}` }));
    const [message] = fromChatMessages([{ role: "assistant", content: "x", tool_calls: many }]);
    expect(message!.content.map((block) => block.type === "tool_use" && block.id)).toEqual([
      false,
      ...many.map((each) => each.id),
    ]);
  });

  it("leaves a message JSON cannot hold to the full reading, which names it", () => {
    const messages: unknown[] = [
      { role: "user", content: "hi" },
      { role: "user", content: "hi", name: Number.NaN },
    ];
    const issues: ValidationIssue[] = [];
    expect(readQuickly(messages, issues, collected())).toBe(1);
    expect(issues).toEqual([]);
    const { quickIssues } = bothWays(messages);
    expect(quickIssues).toEqual([{ path: [1, "name"], message: "must be a finite number" }]);
  });
});

/** Chat Completions fields a block may keep: none, the quick writing's, and others. */
const kept = fc.oneof(
  fc.constant(undefined),
  fc.record({
    chatCompletions: fc.record({ content: fc.constantFrom("string", "null", "absent") }),
  }),
  fc.record({
    chatCompletions: fc.record(
      { content: fc.constantFrom("string", "null", "absent", "parts"), arguments: text },
      { requiredKeys: ["arguments"] },
    ),
  }),
  fc.record({ chatCompletions: objectOf(["content", "arguments", "message", "refusal", "part"]) }),
  fc.record({ other: field }),
);

const block = fc.oneof(...commonBlocks(text, kept));

describe("writeQuickChatMessage: the common messages written without the full writing's copies", () => {
  it("writes a message as the full writing does (key order), or leaves it to it", () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.constantFrom("user", "assistant"),
        fc.array(block.map(tidy), { maxLength: 4 }),
        fc.constantFrom("keep", "drop"),
        (role, content, reasoning) => {
          const message = { role, content } as unknown as Message;
          const quick: JsonObject[] = [];
          if (!writeQuickChatMessage(message, quick)) {
            expect(quick).toEqual([]);
            return;
          }
          taken += 1;
          const full = chatMessagesInFull(message, reasoning as ReasoningPolicy);
          expect(keyOrder(quick)).toEqual(keyOrder(full));
        },
      ),
      { seed: 3_100_433, numRuns: 4000 },
    );
    expect(taken).toBeGreaterThan(400);
  });

  it("writes the library's own messages (no Chat Completions fields) quickly, as the full writing does", () => {
    const use = { type: "tool_use", id: "c1", name: "read", input: { path: "a.ts" } };
    const messages = ourMessages([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [use] },
      { role: "assistant", content: [{ type: "text", text: "reading" }, use] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ]);
    for (const message of messages) {
      const quick: JsonObject[] = [];
      expect(writeQuickChatMessage(message, quick)).toBe(true);
      expect(keyOrder(quick)).toEqual(keyOrder(chatMessagesInFull(message, "keep")));
    }
    expect(toChatMessages(messages.slice(1, 2))).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { type: "function", id: "c1", function: { name: "read", arguments: '{"path":"a.ts"}' } },
        ],
      },
    ]);
  });

  it("writes what the quick reading read back as it was", () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [functionCall("c1", '{"path": "a.ts"}')] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "assistant", tool_calls: [functionCall("c2", "{}"), functionCall("c3", "{")] },
      { role: "tool", tool_call_id: "c2", content: "" },
      { role: "tool", tool_call_id: "c3", content: "no" },
      { role: "assistant", content: "done" },
    ];
    const ours = fromChatMessages(messages);
    for (const message of ours) expect(writeQuickChatMessage(message, [])).toBe(true);
    expect(toChatMessages(ours)).toEqual(
      messages.map(({ tool_calls, ...rest }) =>
        tool_calls === undefined ? rest : { ...rest, tool_calls },
      ),
    );
  });
});

function functionCall(id: string, args: string) {
  return { type: "function", id, function: { name: "read", arguments: args } };
}
