import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { compactChatMessages } from "./compact-messages.js";

/**
 * Chat messages whose fields are getters that answer once and then throw, or throw at once
 * (review 58b's leftover: without a memory, `compactChatMessages` read some fields twice, and
 * a getter that threw anywhere gave a raw `Error`). Each field of a common message is read once,
 * so what was checked is what is kept; a getter that throws is bad input like any other: a
 * `ValidationError` naming the message, its error as the `cause`.
 */

const boom = new Error("boom");
const throwing = () => {
  throw boom;
};

/** A getter that answers `value` once, then throws. */
function once(value: unknown): () => unknown {
  let reads = 0;
  return () => {
    reads += 1;
    if (reads > 1) throw boom;
    return value;
  };
}

/** A getter named `key` on `target`, answering `read`. */
function withGetter<T extends object>(target: T, key: string, read: () => unknown): T {
  return Object.defineProperty(target, key, { get: read, enumerable: true });
}

const asMessages = (messages: unknown[]) => messages as ChatCompletionMessageParam[];
const call = () => ({ id: "c1", type: "function", function: { name: "read", arguments: "{}" } });

/** A conversation of common messages, `key` of the message at `at` a getter answering once. */
function conversation(at: number, key: string): unknown[] {
  const messages: Record<string, unknown>[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: null, tool_calls: [call()] },
    { role: "tool", tool_call_id: "c1", content: "ok" },
    { role: "assistant", content: "done" },
  ];
  const message = messages[at]!;
  const value = message[key];
  delete message[key];
  withGetter(message, key, once(value));
  return messages;
}

describe("chat messages whose getters answer once", () => {
  const cases: [number, string][] = [
    [0, "role"],
    [0, "content"],
    [1, "content"],
    [1, "tool_calls"],
    [2, "tool_call_id"],
    [2, "content"],
    [3, "content"],
  ];

  it.each(cases)("message %i's %s is read once, through compactChatMessages", async (at, key) => {
    const messages = conversation(at, key);
    const { messages: sent, compacted } = await compactChatMessages(asMessages(messages), {
      contextLimit: 10_000,
    });
    expect(compacted).toBe(false);
    expect(sent).toBe(messages);
  });

  it.each(cases)("message %i's %s is read once, through fromChatMessages", (at, key) => {
    const ours = fromChatMessages(conversation(at, key));
    expect(ours.map((message) => message.content.length)).toEqual([1, 1, 1, 1]);
  });

  it("a call's fields are read once", async () => {
    for (const [part, key] of [
      ["call", "id"],
      ["call", "function"],
      ["function", "arguments"],
    ] as const) {
      const made = call();
      const target: Record<string, unknown> = part === "call" ? made : made.function;
      const value = target[key];
      delete target[key];
      withGetter(target, key, once(value));
      const messages = [
        { role: "user", content: "hi" },
        { role: "assistant", tool_calls: [made] },
        { role: "tool", tool_call_id: "c1", content: "ok" },
      ];
      const { compacted } = await compactChatMessages(asMessages(messages), {
        contextLimit: 10_000,
      });
      expect(compacted).toBe(false);
    }
  });

  it("a message the writing mends is known from the one read", async () => {
    // No content and no calls: written `content: ""`, so never sent as it came.
    const messages = [
      { role: "user", content: "hi" },
      withGetter({ role: "assistant" }, "content", once(null)),
    ];
    const { messages: sent, compacted } = await compactChatMessages(asMessages(messages), {
      contextLimit: 10_000,
    });
    expect(compacted).toBe(true);
    expect(sent[1]).toEqual({ role: "assistant", content: "" });
  });
});

describe("a request joined with the library's notice, its getters answering once", () => {
  // Review 59c's leftover: the notice goes in one user message with the request after it, and
  // the join read the request's role and fields a second time (a raw `Error`).
  const FILE = "export const value = 42;\n".repeat(160);
  const REQUEST = "Read the files under src/ one by one.";
  /** A request (`key` first, `key` a getter answering once) and 30 read steps after it. */
  function loop(key: "role" | "content", first: "role" | "content"): unknown[] {
    const request: Record<string, unknown> = {};
    for (const field of first === "role" ? ["role", "content"] : ["content", "role"]) {
      const value = field === "role" ? "user" : REQUEST;
      if (field === key) withGetter(request, field, once(value));
      else request[field] = value;
    }
    const messages: unknown[] = [request];
    for (let step = 1; step <= 30; step += 1) {
      const id = `call_${step}`;
      const args = JSON.stringify({ path: `src/f${step}.ts` });
      messages.push(
        {
          role: "assistant",
          content: `Reading file ${step}.`,
          tool_calls: [{ id, type: "function", function: { name: "read", arguments: args } }],
        },
        { role: "tool", tool_call_id: id, content: FILE },
      );
    }
    return messages;
  }
  const cases = [
    ["role", "role"],
    ["role", "content"],
    ["content", "role"],
    ["content", "content"],
  ] as const;

  it.each(cases)("its %s read once, %s first: the caller's key order kept", async (key, first) => {
    const { messages, compacted } = await compactChatMessages(asMessages(loop(key, first)), {
      contextLimit: 12_000,
    });
    expect(compacted).toBe(true);
    const joined = messages[0] as { role: string; content: { type: string; text: string }[] };
    expect(Object.keys(joined)).toEqual(
      first === "role" ? ["role", "content"] : ["content", "role"],
    );
    expect(joined.role).toBe("user");
    expect(joined.content[0]!.text).toMatch(/^\[Earlier messages were removed/);
    expect(joined.content.at(-1)).toEqual({ type: "text", text: REQUEST });
  });
});

/** `target` behind a proxy whose key listing answers once, then throws. */
function keysOnce<T extends object>(target: T): T {
  let listings = 0;
  return new Proxy(target, {
    ownKeys(inner) {
      listings += 1;
      if (listings > 1) throw boom;
      return Reflect.ownKeys(inner);
    },
  });
}

describe("chat messages whose keys are listed once (review 60a)", () => {
  // The quick reading walks a message's keys once; where it stopped (a message it leaves to the
  // full reading), the full reading read every message again from the first, and the joining of
  // the library's notice with the request listed the request's keys again (a raw `Error`).
  /** A quick message, then one the full reading takes (a field it drops: `undefined`). */
  const inFull = (first: object) => [first, { role: "assistant", content: "ok", name: undefined }];

  it.each([
    ["a proxy's key listing", () => inFull(keysOnce({ role: "user", content: "hi" }))],
    ["a getter", () => inFull(withGetter({ role: "user" }, "content", once("hi")))],
  ])("%s: a message read quickly is not read again by the full reading", async (_, made) => {
    const [first, second] = fromChatMessages(made());
    expect(first!.content).toMatchObject([{ type: "text", text: "hi" }]);
    expect(second!.content).toMatchObject([{ type: "text", text: "ok" }]);
    const input = made();
    const { messages, compacted } = await compactChatMessages(asMessages(input), {
      contextLimit: 10_000,
    });
    expect(compacted).toBe(false);
    expect(messages).toBe(input);
  });

  it("the request joined with the library's notice: its keys not listed again", async () => {
    const FILE = "export const value = 42;\n".repeat(160);
    for (const request of [
      keysOnce({ role: "user", content: "Read the files." }),
      keysOnce({ content: "Read the files.", role: "user" }),
    ]) {
      const messages: unknown[] = [request];
      for (let step = 1; step <= 30; step += 1) {
        const id = `call_${step}`;
        messages.push(
          { role: "assistant", content: `Reading ${step}.`, tool_calls: [{ ...call(), id }] },
          { role: "tool", tool_call_id: id, content: FILE },
        );
      }
      const { messages: sent, compacted } = await compactChatMessages(asMessages(messages), {
        contextLimit: 12_000,
      });
      expect(compacted).toBe(true);
      const joined = sent[0] as { role: string; content: { type: string; text: string }[] };
      // Its keys not listed again: in the API's order, role first.
      expect(Object.keys(joined)).toEqual(["role", "content"]);
      expect(joined.content[0]!.text).toMatch(/^\[Earlier messages were removed/);
      expect(joined.content.at(-1)).toEqual({ type: "text", text: "Read the files." });
    }
  });
});

describe("the messages array itself, a proxy whose traps throw (review 60a)", () => {
  // The one-call helpers' first look at the array (is it one?) read it raw.
  it("a ValidationError from compactChatMessages, as from fromChatMessages", async () => {
    const messages = new Proxy([{ role: "user", content: "hi" }], { get: throwing });
    const error = await compactChatMessages(asMessages(messages), { contextLimit: 10_000 }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      "Invalid Chat Completions messages: could not be read (a getter or proxy threw)",
    );
    expect((error as ValidationError).cause).toBe(boom);
    expect(() => fromChatMessages(messages)).toThrow(ValidationError);
  });
});

describe("chat messages whose getters throw", () => {
  const holed: unknown[] = [{ role: "user", content: "hi" }];
  withGetter(holed, "1", throwing);
  const cases: [string, unknown[], number][] = [
    ["a common message's content", [withGetter({ role: "user" }, "content", throwing)], 0],
    [
      "another message's field",
      [
        { role: "user", content: "hi" },
        withGetter({ role: "user", content: "x" }, "name", throwing),
      ],
      1,
    ],
    [
      "a call's arguments",
      [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: withGetter({ name: "r" }, "arguments", throwing),
            },
          ],
        },
      ],
      1,
    ],
    ["a message of the array", holed, 1],
    ["a proxy's trap", [new Proxy({ role: "user", content: "hi" }, { ownKeys: throwing })], 0],
  ];

  it.each(cases)("%s: a ValidationError naming the message", async (_, messages, at) => {
    const expected = `Invalid Chat Completions messages: [${at}]: could not be read (a getter or proxy threw)`;
    for (const run of [
      async () => fromChatMessages(messages),
      () => compactChatMessages(asMessages(messages), { contextLimit: 10_000 }),
    ]) {
      const error = await run().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toBe(expected);
      expect((error as ValidationError).cause).toBe(boom);
    }
  });
});
