import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { refusalIssues } from "../../test/support/refusals.js";
import { ValidationError } from "../core/errors.js";
import { SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { fromModelMessages, toModelMessages } from "./model-messages.js";

const issuesOf = (run: () => unknown) =>
  refusalIssues(run).map((issue) => ({ path: issue.path.join("."), message: issue.message }));

const pathsOf = (run: () => unknown) => issuesOf(run).map((issue) => issue.path);

function deep(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let level = root;
  for (let index = 0; index < levels; index += 1) {
    const next: Record<string, unknown> = {};
    level["a"] = next;
    level = next;
  }
  return root;
}

describe("fromModelMessages: system messages", () => {
  it("refuses a system message that is not JSON, naming the field", () => {
    const cyclic: Record<string, unknown> = { role: "system", content: "s" };
    cyclic["self"] = cyclic;
    expect(issuesOf(() => fromModelMessages([cyclic]))).toEqual([
      { path: "0.self", message: "must not contain itself (circular reference)" },
    ]);
    const nested: Record<string, unknown> = { role: "system", content: "s", providerOptions: {} };
    (nested["providerOptions"] as Record<string, unknown>)["back"] = nested;
    expect(pathsOf(() => fromModelMessages([nested]))).toEqual([
      "0.providerOptions.back.providerOptions",
    ]);
    const system = (providerOptions: unknown) => [
      { role: "user", content: "hi" },
      { role: "system", content: "s", providerOptions },
    ];
    expect(pathsOf(() => fromModelMessages(system({ a: 1n })))).toEqual(["1.providerOptions.a"]);
    expect(pathsOf(() => fromModelMessages(system({ f: () => 1 })))).toEqual([
      "1.providerOptions.f",
    ]);
    expect(pathsOf(() => fromModelMessages(system({ d: new Date(0) })))).toEqual([
      "1.providerOptions.d",
    ]);
    expect(pathsOf(() => fromModelMessages(system({ n: Number.NaN })))).toEqual([
      "1.providerOptions.n",
    ]);
    // Deeper than JSON may nest: one issue about the field, without a stack overflow.
    expect(issuesOf(() => fromModelMessages(system(deep(100_000))))).toEqual([
      { path: "1.providerOptions", message: expect.stringMatching(/nests deeper than/) },
    ]);
    expect(pathsOf(() => fromModelMessages([{ role: "system", content: 5 }]))).toEqual([
      "0.content",
    ]);
    expect(pathsOf(() => fromModelMessages([{ role: "system" }]))).toEqual(["0.content"]);
  });

  it("keeps a JSON copy, not the caller's object, and drops properties holding undefined", () => {
    const providerOptions = { anthropic: { cacheControl: { type: "ephemeral" }, ttl: undefined } };
    const message = { role: "system" as const, content: "Be brief.", providerOptions };
    const [ours] = fromModelMessages([message]);
    const block = ours?.content[0];
    expect(block).toEqual({
      type: "opaque",
      block: {
        type: SYSTEM_MESSAGE_BLOCK_TYPE,
        message: {
          role: "system",
          content: "Be brief.",
          providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
        },
      },
    });
    const carried = block?.type === "opaque" ? block.block["message"] : undefined;
    expect(carried).not.toBe(message);
    providerOptions.anthropic.cacheControl.type = "changed";
    expect(toModelMessages(ours ? [ours] : [])).toEqual([
      {
        role: "system",
        content: "Be brief.",
        providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
      },
    ]);
  });
});

describe("compactModelMessages: what is not a conversation", () => {
  it("rejects with a ValidationError, not a TypeError", async () => {
    for (const messages of [{}, "hi", null, 5]) {
      const rejected = await compactModelMessages(messages as never, { contextLimit: 1000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(ValidationError.isInstance(rejected)).toBe(true);
      expect((rejected as ValidationError).issues).toEqual([
        { path: [], message: "must be an array of messages" },
      ]);
    }
  });

  it("rejects a system message that is not JSON naming its path", async () => {
    const cyclic: Record<string, unknown> = { role: "system", content: "s" };
    cyclic["self"] = cyclic;
    const wrong: [Record<string, unknown>, (string | number)[]][] = [
      [cyclic, [0, "self"]],
      [{ role: "system", content: "s", providerOptions: { a: 1n } }, [0, "providerOptions", "a"]],
      [{ role: "system", content: "s", providerOptions: deep(100_000) }, [0, "providerOptions"]],
    ];
    for (const [system, path] of wrong) {
      const messages = [system, { role: "user", content: "hi" }] as ModelMessage[];
      await expect(compactModelMessages(messages, { contextLimit: 1000 })).rejects.toMatchObject({
        issues: [{ path }],
      });
    }
  });
});
