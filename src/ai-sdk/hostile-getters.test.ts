import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { ImageBlock, OpaqueBlock, ToolResultBlock, ToolUseBlock } from "../core/message.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { fromModelMessages } from "./model-messages.js";

/**
 * Reviews 52d #8, #9 and 55b #6: input objects whose fields are getters that answer differently
 * at each read, or throw. What was checked must be what is kept (a second read gave a
 * `TypeError` deep in the estimate), and a getter that throws is bad input like any other: a
 * `ValidationError` naming where, its error as the `cause`.
 */

/** A getter's answers: `first` for the first `honest` reads, `later` after. */
function turning(first: unknown, later: unknown, honest = 1): () => unknown {
  let reads = 0;
  return () => {
    reads += 1;
    return reads <= honest ? first : later;
  };
}

const call = (extra: object = {}) => ({
  role: "assistant",
  content: [{ type: "tool-call", toolCallId: "c1", toolName: "t", input: {}, ...extra }],
});
const toolMessage = (output: object) => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: "c1", toolName: "t", output }],
});
const asMessages = (messages: object[]) => messages as ModelMessage[];

/** A getter named `key` on `target`, answering `read`. */
function withGetter<T extends object>(target: T, key: string, read: () => unknown): T {
  return Object.defineProperty(target, key, { get: read, enumerable: true });
}

/** The issues of the `ValidationError` `run` throws. */
function refusal(run: () => unknown): { paths: string[]; cause: unknown } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { paths: error.message.split(": ").slice(1, 2), cause: error.cause };
  }
  throw new Error("no ValidationError");
}

describe("getters that answer differently at each read", () => {
  it("a text output's value is read once: the text checked is the text kept", async () => {
    const output = withGetter({ type: "text" }, "value", turning("ok", { not: "text" }));
    const messages = asMessages([call(), toolMessage(output)]);
    const result = fromModelMessages(messages)[1]!.content[0] as ToolResultBlock;
    expect(result.content).toBe("ok");
    const output2 = withGetter({ type: "text" }, "value", turning("ok", { not: "text" }));
    const { contextUsed } = await compactModelMessages(asMessages([call(), toolMessage(output2)]), {
      contextLimit: 1_000,
    });
    expect(contextUsed).toBeGreaterThan(0);
  });

  it("a compaction part's providerOptions are read once: its signature is the one checked", () => {
    const compaction = { anthropic: { type: "compaction", signature: "s" } };
    for (const honest of [1, 2]) {
      const part = withGetter(
        { type: "text", text: "summary" },
        "providerOptions",
        turning(compaction, { other: 1 }, honest),
      );
      const [message] = fromModelMessages(asMessages([{ role: "assistant", content: [part] }]));
      const block = message!.content[0] as OpaqueBlock;
      expect(block.block).toMatchObject({ type: "compaction", content: "summary", signature: "s" });
    }
  });

  it("a media part's type and a call's input are read once", () => {
    const media = withGetter({ type: "media", data: "QUJD" }, "mediaType", turning("image/png", 5));
    const [, results] = fromModelMessages(
      asMessages([call(), toolMessage({ type: "content", value: [media] })]),
    );
    const [image] = (results!.content[0] as ToolResultBlock).content as ImageBlock[];
    expect(image!.source).toEqual({ type: "base64", mediaType: "image/png", data: "QUJD" });

    const part = withGetter(
      { type: "tool-call", toolCallId: "c1", toolName: "t", providerOptions: { p: { q: 1 } } },
      "input",
      turning({ path: "a.ts" }, "not an object"),
    );
    const [message] = fromModelMessages(asMessages([{ role: "assistant", content: [part] }]));
    expect((message!.content[0] as ToolUseBlock).input).toEqual({ path: "a.ts" });
  });
});

describe("getters that throw", () => {
  const boom = new Error("boom");
  const throwing = () => {
    throw boom;
  };

  it("are a ValidationError naming the field, the getter's error its cause", () => {
    const cases: [object[], string][] = [
      [[withGetter({ content: "x" }, "role", throwing)], "[0].role"],
      [[withGetter({ role: "user" }, "content", throwing)], "[0].content"],
      [
        [{ role: "user", content: [withGetter({ type: "text" }, "text", throwing)] }],
        "[0].content[0].text",
      ],
      [[{ role: "user", content: [withGetter({}, "type", throwing)] }], "[0].content[0].type"],
      [
        [withGetter({ role: "user", content: "x" }, "providerOptions", throwing)],
        "[0].providerOptions",
      ],
      [[withGetter({ role: "system" }, "content", throwing)], "[0].content"],
      // A getter deep in a part: the part is named.
      [[call({ input: withGetter({}, "path", throwing) })], "[0].content[0]"],
      [[new Proxy({ role: "system", content: "s" }, { ownKeys: throwing })], "[0]"],
    ];
    for (const [messages, path] of cases) {
      const { paths, cause } = refusal(() => fromModelMessages(messages));
      expect(paths).toEqual([path]);
      expect(cause).toBe(boom);
    }
  });

  it("through compactModelMessages too, a message of the array included", async () => {
    const messages: unknown[] = [{ role: "user", content: "a" }];
    withGetter(messages, "1", throwing);
    await expect(
      compactModelMessages(messages as ModelMessage[], { contextLimit: 1_000 }),
    ).rejects.toThrow("Invalid AI SDK messages: [1]: could not be read (a getter or proxy threw)");
    const part = withGetter({ type: "text" }, "text", throwing);
    await expect(
      compactModelMessages(asMessages([{ role: "user", content: [part] }]), {
        contextLimit: 1_000,
      }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
