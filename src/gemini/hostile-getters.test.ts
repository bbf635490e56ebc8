import type { Content } from "@google/genai";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { ToolUseBlock } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import { CompactionMemory } from "../session/compaction-memory.js";
import { compactGeminiContents } from "./compact-contents.js";
import { fromGeminiContents } from "./contents-in.js";
import { appendGeminiResponse } from "./response.js";
import { usageFromGemini } from "./usage.js";

/**
 * Gemini contents whose fields are getters that throw, or proxies whose traps throw (review 60a:
 * the Chat, Responses and AI SDK readings were fixed before; the Gemini reading let the getter's
 * own `Error` through, and so did the closing of partial responses that `compactGeminiContents`
 * runs before it). A throw while reading is bad input like any other: a `ValidationError` naming
 * the field where it throws, its error the `cause`.
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

type Contents = Record<string, unknown>[];
const partsOf = (content: Record<string, unknown>) => content["parts"] as Record<string, unknown>[];
/** The `key` object (`functionCall`, `functionResponse`) of a content's part. */
const dataOf = (content: Record<string, unknown>, part: number, key: string) =>
  partsOf(content)[part]![key] as Record<string, unknown>;

/** A conversation of the common shapes: a request, a reply of text and a call, its response. */
function conversation(): Contents {
  return [
    { role: "user", parts: [{ text: "Read a.ts" }] },
    {
      role: "model",
      parts: [
        { text: "Reading." },
        { functionCall: { id: "c1", name: "read", args: { path: "a.ts" } } },
      ],
    },
    {
      role: "user",
      parts: [{ functionResponse: { id: "c1", name: "read", response: { output: "done" } } }],
    },
    { role: "model", parts: [{ text: "Done." }] },
  ];
}

/** `conversation()` changed by `change`. */
function changed(change: (contents: Contents) => void): Contents {
  const contents = conversation();
  change(contents);
  return contents;
}

const asContents = (contents: unknown[]) => contents as Content[];

/** What each entry does with `contents`: the error it throws (`undefined`: none). */
async function errorsOf(contents: () => unknown[]): Promise<unknown[]> {
  const runs = [
    async () => fromGeminiContents(contents()),
    () => compactGeminiContents(asContents(contents()), { contextLimit: 10_000 }),
    () =>
      compactGeminiContents(asContents(contents()), {
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

/** Expects each error a ValidationError saying the field at `at` could not be read. */
function expectNamed(errors: readonly unknown[], at: string): void {
  for (const error of errors) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      `Invalid Gemini contents: ${at}: could not be read (a getter or proxy threw)`,
    );
    expect((error as ValidationError).cause).toBe(boom);
  }
}

describe("Gemini contents whose getters or proxies throw", () => {
  const cases: [string, () => Contents, string][] = [
    [
      "a content's parts",
      () => changed((contents) => withGetter(contents[0]!, "parts", throwing)),
      "[0].parts",
    ],
    [
      "a content's field of its own",
      () => changed((contents) => withGetter(contents[0]!, "note", throwing)),
      "[0].note",
    ],
    [
      "the last content's role (read first to close partial responses)",
      () => changed((contents) => withGetter(contents[3]!, "role", throwing)),
      "[3].role",
    ],
    [
      "a part's text",
      () => changed((contents) => withGetter(partsOf(contents[1]!)[0]!, "text", throwing)),
      "[1].parts[0].text",
    ],
    [
      "a field deep in a call's args",
      () =>
        changed((contents) => {
          dataOf(contents[1]!, 1, "functionCall")["args"] = {
            options: withGetter({}, "depth", throwing),
          };
        }),
      "[1].parts[1].functionCall.args.options.depth",
    ],
    [
      "a response's output",
      () =>
        changed((contents) => {
          dataOf(contents[2]!, 0, "functionResponse")["response"] = withGetter(
            {},
            "output",
            throwing,
          );
        }),
      "[2].parts[0].functionResponse.response.output",
    ],
    [
      "a part of the parts array (an index getter)",
      () => changed((contents) => withGetter(partsOf(contents[1]!), "0", throwing)),
      "[1].parts[0]",
    ],
    [
      "a content whose proxy's traps throw",
      () =>
        changed((contents) => {
          contents[0] = trapsThrow(contents[0]!);
        }),
      "[0]",
    ],
    [
      "the last content, a proxy whose traps throw",
      () =>
        changed((contents) => {
          contents[3] = trapsThrow(contents[3]!);
        }),
      "[3]",
    ],
    [
      "a part whose proxy's traps throw",
      () =>
        changed((contents) => {
          partsOf(contents[1]!)[0] = trapsThrow({ text: "x" });
        }),
      "[1].parts[0]",
    ],
    [
      "a call's args whose proxy's traps throw",
      () =>
        changed((contents) => {
          dataOf(contents[1]!, 1, "functionCall")["args"] = trapsThrow({ path: "a.ts" });
        }),
      "[1].parts[1].functionCall.args",
    ],
  ];

  it.each(cases)("%s: a ValidationError naming it, from every entry", async (_, contents, at) => {
    expectNamed(await errorsOf(contents), at);
  });

  it("a content of the array (an index getter): named by its index", async () => {
    expectNamed(await errorsOf(() => changed((list) => withGetter(list, "1", throwing))), "[1]");
  });

  it("what the options' generateId throws stays its own (no content is named)", () => {
    const failing = new Error("no more ids");
    const contents = [{ role: "model", parts: [{ functionCall: { name: "read", args: {} } }] }];
    const generateId = () => {
      throw failing;
    };
    expect(thrownBy(() => fromGeminiContents(contents, { generateId }))).toBe(failing);
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
        "Invalid Gemini contents: could not be read (a getter or proxy threw)",
      );
    }
  });

  it("names each content that threw, beside the other issues, reading on after it", () => {
    const contents = changed((list) => {
      withGetter(list[0]!, "parts", throwing);
      list[1] = { role: "model", parts: 42 };
      withGetter(partsOf(list[2]!)[0]!, "functionResponse", throwing);
    });
    const error = thrownBy(() => fromGeminiContents(contents)) as ValidationError;
    expect(error.issues.map((issue) => issue.path)).toEqual([
      [0, "parts"],
      [1, "parts"],
      [2, "parts", 0, "functionResponse"],
    ]);
    expect(error.cause).toBe(boom);
  });
});

describe("the last contents, read first to close partial responses", () => {
  // Ending on the responses to the model's calls: `compactGeminiContents` reads the last two
  // contents, their roles, parts and calls, before the conversion does.
  const answered = (change: (contents: Contents) => void) => () => changed(change).slice(0, 3);
  const cases: [string, () => Contents, string][] = [
    [
      "the responses' parts",
      answered((contents) => withGetter(contents[2]!, "parts", throwing)),
      "[2].parts",
    ],
    [
      "a response's id",
      answered((contents) =>
        withGetter(dataOf(contents[2]!, 0, "functionResponse"), "id", throwing),
      ),
      "[2].parts[0].functionResponse.id",
    ],
    [
      "the calls' content, a proxy whose traps throw",
      answered((contents) => {
        contents[1] = trapsThrow(contents[1]!);
      }),
      "[1]",
    ],
  ];

  it.each(cases)("%s: a ValidationError naming it, from every entry", async (_, contents, at) => {
    expectNamed(await errorsOf(contents), at);
  });
});

describe("Gemini contents whose getters answer once", () => {
  it("a part read in full is read once (its call's id told from the copy)", () => {
    // A call with a signature is no quick part: it is read from its copy, and its id was read
    // a second time from the caller's part.
    const call = { id: "c1", name: "read", args: { path: "a.ts" } };
    const part = withGetter({ thoughtSignature: "c2ln" }, "functionCall", once(call));
    const [message] = fromGeminiContents([{ role: "model", parts: [part] }]);
    expect((message!.content[0] as ToolUseBlock).id).toBe("c1");
  });

  it("one of the last two contents, read to close partial responses then converted: named", async () => {
    const contents = () =>
      changed((list) => withGetter(list[2]!, "role", once("user"))).slice(0, 3);
    const [from, ...compacted] = await errorsOf(contents);
    expect(from).toBeUndefined();
    expectNamed(compacted, "[2].role");
  });
});

describe("appendGeminiResponse: a response whose getters throw", () => {
  const cases: [string, () => object, string][] = [
    ["its candidates", () => withGetter({}, "candidates", throwing), "candidates"],
    [
      "a candidate's content",
      () => ({ candidates: [withGetter({}, "content", throwing)] }),
      "candidates[0].content",
    ],
    [
      "a part's text",
      () => ({
        candidates: [{ content: { role: "model", parts: [withGetter({}, "text", throwing)] } }],
      }),
      "candidates[0].content.parts[0].text",
    ],
    [
      "its usage",
      () => ({
        candidates: [{ content: { role: "model", parts: [{ text: "ok" }] } }],
        usageMetadata: withGetter({}, "promptTokenCount", throwing),
      }),
      "usageMetadata.promptTokenCount",
    ],
  ];

  it.each(cases)("%s: a ValidationError naming it, nothing appended", (_, response, at) => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("hi");
    const error = thrownBy(() => appendGeminiResponse(session, response() as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      `Invalid Gemini response: ${at}: could not be read (a getter or proxy threw)`,
    );
    expect((error as ValidationError).cause).toBe(boom);
    expect(session.messages.length).toBe(1);
  });
});

describe("usageFromGemini: a usage whose getter throws", () => {
  it("is a ValidationError naming the field", () => {
    const usage = withGetter({ candidatesTokenCount: 1 }, "promptTokenCount", throwing);
    const error = thrownBy(() => usageFromGemini(usage as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      "Invalid Gemini usageMetadata: promptTokenCount: could not be read (a getter or proxy threw)",
    );
    expect((error as ValidationError).cause).toBe(boom);
  });
});
