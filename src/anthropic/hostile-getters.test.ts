import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { AgentSession } from "../session/agent-session.js";
import { CompactionMemory } from "../session/compaction-memory.js";
import { compactAnthropicMessages } from "./compact-messages.js";
import { appendAnthropicResponse } from "./response.js";
import { fromAnthropicMessages } from "./turns.js";
import { usageFromAnthropic } from "./usage.js";

/**
 * Anthropic messages whose fields are getters that throw, or proxies whose traps throw (review
 * 60a: the Chat, Responses and AI SDK readings were fixed before; every Anthropic reading let the
 * getter's own `Error` through). A throw while reading is bad input like any other: a
 * `ValidationError` naming the field where it throws, its error the `cause`; and a getter that
 * answers once is read once, or refused as one, never a raw `Error` from a later read.
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

/** `target` with a getter named `key`, answering `read`. */
function withGetter<T extends object>(target: T, key: string, read: () => unknown): T {
  return Object.defineProperty(target, key, { get: read, enumerable: true, configurable: true });
}

/** What `run` throws; `undefined` when it returns. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (thrown) {
    return thrown;
  }
  return undefined;
}

/** `target` behind a proxy every trap of which throws. */
const trapsThrow = <T extends object>(target: T): T =>
  new Proxy(target, {
    get: throwing,
    has: throwing,
    ownKeys: throwing,
    getOwnPropertyDescriptor: throwing,
    getPrototypeOf: throwing,
  });

type Params = Record<string, unknown>[];
const blocksOf = (param: Record<string, unknown>) => param["content"] as Record<string, unknown>[];

/** A conversation of the common shapes: a request, a reply of text and a tool use, its result. */
function conversation(): Params {
  return [
    { role: "user", content: "Read a.ts" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "t1", name: "read", input: { path: "a.ts" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "done" }] },
  ];
}

/** `conversation()` changed by `change`. */
function changed(change: (params: Params) => void): Params {
  const params = conversation();
  change(params);
  return params;
}

const asParams = (params: unknown[]) => params as MessageParam[];

/** What each entry does with `params`: the error it throws (`undefined`: none). */
async function errorsOf(params: () => unknown[]): Promise<unknown[]> {
  const runs = [
    async () => fromAnthropicMessages(params()),
    () => compactAnthropicMessages(asParams(params()), { contextLimit: 10_000 }),
    () =>
      compactAnthropicMessages(asParams(params()), {
        contextLimit: 10_000,
        memory: new CompactionMemory(),
      }),
  ];
  const errors: unknown[] = [];
  for (const run of runs)
    errors.push(
      await run().then(
        () => undefined,
        (thrown: unknown) => thrown,
      ),
    );
  return errors;
}

describe("Anthropic messages whose getters or proxies throw", () => {
  const cases: [string, () => Params, string][] = [
    [
      "a message's content",
      () => changed((params) => withGetter(params[0]!, "content", throwing)),
      "messages[0].content",
    ],
    [
      "a system message's content",
      () => changed((params) => params.push(withGetter({ role: "system" }, "content", throwing))),
      "messages[3].content",
    ],
    [
      "a block's text",
      () => changed((params) => withGetter(blocksOf(params[1]!)[0]!, "text", throwing)),
      "messages[1].content[0].text",
    ],
    [
      "an image block's source",
      () =>
        changed((params) =>
          params.push({
            role: "user",
            content: [withGetter({ type: "image" }, "source", throwing)],
          }),
        ),
      "messages[3].content[0].source",
    ],
    [
      "a tool result's part",
      () =>
        changed((params) => {
          blocksOf(params[2]!)[0]!["content"] = [withGetter({ type: "text" }, "text", throwing)];
        }),
      "messages[2].content[0].content[0].text",
    ],
    [
      "a field deep in a tool input",
      () =>
        changed((params) => {
          blocksOf(params[1]!)[1]!["input"] = { options: withGetter({}, "depth", throwing) };
        }),
      "messages[1].content[1].input.options.depth",
    ],
    [
      "a block of the content array (an index getter)",
      () => changed((params) => withGetter(blocksOf(params[1]!), "0", throwing)),
      "messages[1].content[0]",
    ],
    [
      "a message whose proxy's traps throw",
      () =>
        changed((params) => {
          params[0] = trapsThrow(params[0]!);
        }),
      "messages[0]",
    ],
    [
      "a block whose proxy's traps throw",
      () =>
        changed((params) => {
          blocksOf(params[1]!)[0] = trapsThrow({ type: "text", text: "x" });
        }),
      "messages[1].content[0]",
    ],
    [
      "a tool input whose proxy's traps throw",
      () =>
        changed((params) => {
          blocksOf(params[1]!)[1]!["input"] = trapsThrow({ path: "a.ts" });
        }),
      "messages[1].content[1].input",
    ],
  ];

  it.each(cases)("%s: a ValidationError naming it, from every entry", async (_, params, at) => {
    for (const error of await errorsOf(params)) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toBe(
        `Invalid Anthropic messages: ${at}: could not be read (a getter or proxy threw)`,
      );
      expect((error as ValidationError).cause).toBe(boom);
    }
  });

  it("a message of the array (an index getter): named by its index", async () => {
    const params = () => changed((list) => withGetter(list, "1", throwing));
    // With a memory the helper takes the array first (`messagesFrom`), naming it by index.
    const [from, compact, remembered] = await errorsOf(params);
    for (const error of [from, compact])
      expect((error as ValidationError).message).toBe(
        "Invalid Anthropic messages: messages[1]: could not be read (a getter or proxy threw)",
      );
    expect((remembered as ValidationError).issues[0]!.path).toEqual([1]);
    for (const error of [from, compact, remembered])
      expect((error as ValidationError).cause).toBe(boom);
  });

  it.each([
    ["whose proxy's traps throw", () => trapsThrow(conversation())],
    [
      "a revoked proxy",
      () => {
        const { proxy, revoke } = Proxy.revocable(conversation(), {});
        revoke();
        return proxy;
      },
    ],
  ])("the array itself, %s: a ValidationError, from every entry", async (_, list) => {
    for (const error of await errorsOf(list)) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toBe(
        "Invalid Anthropic messages: could not be read (a getter or proxy threw)",
      );
    }
  });

  it("names each message that threw, beside the other issues, reading on after it", () => {
    const params = changed((list) => {
      withGetter(list[0]!, "content", throwing);
      list[1] = { role: "assistant", content: 42 };
      withGetter(blocksOf(list[2]!)[0]!, "tool_use_id", throwing);
    });
    const error = thrownBy(() => fromAnthropicMessages(params)) as ValidationError;
    expect(error.issues.map((issue) => issue.path)).toEqual([
      ["messages", 0, "content"],
      ["messages", 1, "content"],
      ["messages", 2, "content", 0, "tool_use_id"],
    ]);
  });
});

describe("Anthropic messages whose getters answer once", () => {
  it("a field of a tool input the compaction reads again (kept, not copied): refused, named", async () => {
    // Without an archive the one-call helper keeps the caller's tool inputs as they are (checked,
    // not copied), and compacting measures them again: the getter's second answer threw there.
    const FILE = "export const value = 42;\n".repeat(160);
    const params: unknown[] = [{ role: "user", content: "Read the files." }];
    for (let step = 1; step <= 30; step += 1) {
      const input = step === 15 ? withGetter({}, "path", once("src/f15.ts")) : { path: "src/f.ts" };
      params.push(
        {
          role: "assistant",
          content: [{ type: "tool_use", id: `t${step}`, name: "read", input }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: `t${step}`, content: FILE }],
        },
      );
    }
    const error = await compactAnthropicMessages(asParams(params), { contextLimit: 12_000 }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      "Invalid Anthropic messages: messages[29].content[0].input.path: could not be read (a getter or proxy threw)",
    );
    expect((error as ValidationError).cause).toBe(boom);
  });
});

describe("appendAnthropicResponse: a response whose getters throw", () => {
  const cases: [string, () => object, string][] = [
    ["its content", () => withGetter({}, "content", throwing), "response: content"],
    [
      "a block's text",
      () => ({ content: [withGetter({ type: "text" }, "text", throwing)] }),
      "response: content[0].text",
    ],
    [
      "a tool use's input",
      () => ({
        content: [{ type: "tool_use", id: "t1", name: "read", input: trapsThrow({}) }],
      }),
      "response: content[0].input",
    ],
    [
      "its usage",
      () => ({
        content: [{ type: "text", text: "ok" }],
        usage: withGetter({ output_tokens: 1 }, "input_tokens", throwing),
      }),
      // Named as a malformed usage is, by usageFromAnthropic.
      "usage: input_tokens",
    ],
  ];

  it.each(cases)("%s: a ValidationError naming it, nothing appended", (_, response, at) => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("hi");
    const error = thrownBy(() => appendAnthropicResponse(session, response() as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      `Invalid Anthropic ${at}: could not be read (a getter or proxy threw)`,
    );
    expect((error as ValidationError).cause).toBe(boom);
    expect(session.messages.length).toBe(1);
  });
});

describe("usageFromAnthropic: a usage whose getter throws", () => {
  it("is a ValidationError naming the field", () => {
    const usage = withGetter({ output_tokens: 1 }, "input_tokens", throwing);
    const error = thrownBy(() => usageFromAnthropic(usage as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      "Invalid Anthropic usage: input_tokens: could not be read (a getter or proxy threw)",
    );
    expect((error as ValidationError).cause).toBe(boom);
  });
});
