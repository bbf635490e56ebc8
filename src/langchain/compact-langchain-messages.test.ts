import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { fileText, pairingProblems } from "../../test/support/langchain-anthropic.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { ValidationError } from "../core/errors.js";
import { INTERRUPTED_NOTICE } from "../core/interrupted-calls.js";
import { MemoryArchive } from "../store/index.js";
import { MockLlmClient } from "../testing/index.js";
import { compactLangChainMessages, recallTool } from "./index.js";

/** A model's tool loop over `steps` files, as `model.invoke` would have built it. */
function loop(steps: number, lastInputTokens?: number): BaseMessage[] {
  const messages: BaseMessage[] = [
    new SystemMessage({ content: "You are a coding agent.", id: "system" }),
    new HumanMessage({ content: "Read every file. Never touch package-lock.json.", id: "request" }),
  ];
  for (let step = 0; step < steps; step += 1) {
    const id = `call_${step}`;
    const path = `src/file-${step}.ts`;
    messages.push(
      new AIMessage({
        id: `reply_${step}`,
        content: `Reading ${path}.`,
        tool_calls: [{ id, name: "read_file", args: { path }, type: "tool_call" }],
        ...(lastInputTokens !== undefined && step === steps - 1
          ? {
              usage_metadata: {
                input_tokens: lastInputTokens,
                output_tokens: 20,
                total_tokens: lastInputTokens + 20,
              } as never,
            }
          : {}),
      }),
      new ToolMessage({
        content: fileText(path),
        tool_call_id: id,
        name: "read_file",
        id: `result_${step}`,
      }),
    );
  }
  return messages;
}

describe("compactLangChainMessages", () => {
  it("gives the messages back as they are under the threshold", async () => {
    const messages = loop(4);
    const {
      messages: out,
      compacted,
      result,
    } = await compactLangChainMessages(messages, {
      contextLimit: 200_000,
    });
    expect(compacted).toBe(false);
    expect(out).toBe(messages);
    expect(result.tokensAfter).toBe(result.tokensBefore);
  });

  it("compacts above it: old results masked, unchanged messages the same objects, pairs whole", async () => {
    const messages = loop(30);
    const archive = new MemoryArchive();
    const {
      messages: out,
      compacted,
      result,
    } = await compactLangChainMessages(messages, {
      contextLimit: 30_000,
      sessionId: "loop-1",
      archive,
    });
    expect(compacted).toBe(true);
    expect(result.toolResultsRedacted + result.toolResultsSummarized).toBeGreaterThan(0);
    expect(out[0]).toBe(messages[0]);
    expect(
      out.some((message) => message === messages[1] || message.text.includes("Never touch")),
    ).toBe(true);
    expect(pairingProblems(out)).toEqual([]);
    // The newest results are whole, and the same objects.
    expect(out.at(-1)).toBe(messages.at(-1));
    // What went is recallable from the archive, under the session id, after the call too.
    const handle = /\[recall (r\d+-[0-9a-f]+)\]/.exec(
      out.map((message) => message.text).join("\n"),
    )?.[1];
    expect(handle).toBeDefined();
    const record = archive.get("loop-1", handle!);
    expect(record?.handle).toBe(handle);
    expect(JSON.stringify(record)).toContain("// src/file-0.ts: export function handler");
    // The model gets it back through the recall tool over the same archive and session id.
    const recalled = String(await recallTool({ archive, sessionId: "loop-1" }).invoke({ handle }));
    expect(recalled).toContain("// src/file-0.ts: export function handler");
    await expect(recallTool({ archive }).invoke({ handle })).rejects.toThrow();
    expect(() => recallTool({ archive: 5 } as never)).toThrow(ValidationError);
  });

  // As every one-call helper: the caller holds the whole history, so nothing is archived (and
  // no record named and hashed) unless an archive is given. Before, each call filled a
  // MemoryArchive of its own that the next call never read.
  it("keeps no records without an archive, as the other one-call helpers", async () => {
    const { messages, compacted } = await compactLangChainMessages(loop(30), {
      contextLimit: 30_000,
    });
    expect(compacted).toBe(true);
    const texts = messages.map((message) => message.text).join("\n");
    expect(texts).toContain("[Earlier messages were removed");
    expect(texts).not.toContain("[recall ");
    // An option set to undefined (`{ archive: maybeArchive }`, none configured) is absent:
    // found by a review, it brought back an archive of the call's own.
    const unset = await compactLangChainMessages(loop(30), {
      contextLimit: 30_000,
      archive: undefined as never,
      sessionId: undefined as never,
    });
    expect(unset.messages.map((message) => message.text).join("\n")).not.toContain("[recall ");
  });

  it("closes the calls an interrupted run left waiting, as the middleware does", async () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ content: "Read the config.", id: "request" }),
      new AIMessage({
        id: "reply",
        content: "Reading.",
        tool_calls: [
          { id: "call_1", name: "read_file", args: { path: "a.ts" }, type: "tool_call" },
        ],
      }),
      new HumanMessage({ content: "Stop, read b.ts instead.", id: "again" }),
    ];
    const { messages: out, compacted } = await compactLangChainMessages(messages, {
      contextLimit: 200_000,
    });
    expect(compacted).toBe(true);
    expect(out.map((message) => message.type)).toEqual(["human", "ai", "tool", "human"]);
    const closing = out[2] as ToolMessage;
    expect([closing.tool_call_id, closing.status, closing.content]).toEqual([
      "call_1",
      "error",
      INTERRUPTED_NOTICE,
    ]);
    expect(pairingProblems(out)).toEqual([]);
    expect([out[0], out[1], out[3]]).toEqual([messages[0], messages[1], messages[2]]);
    // What is no message is refused by name, not met by a TypeError.
    for (const bad of [
      [null],
      [{ type: "ai", tool_calls: [null] }],
      [{ type: "ai", tool_calls: 5 }],
    ])
      await expect(
        compactLangChainMessages(bad as never, { contextLimit: 200_000 }),
      ).rejects.toThrow(ValidationError);
  });

  it("moves a result given after a system message up to its calls, and closes the one never given", async () => {
    const call = (id: string) => ({ id, name: "read_file", args: { path: `${id}.ts` } });
    const messages: BaseMessage[] = [
      new HumanMessage({ content: "Read both.", id: "request" }),
      new AIMessage({ id: "reply", content: "", tool_calls: [call("a"), call("b"), call("c")] }),
      new ToolMessage({ content: "A", tool_call_id: "a", id: "result-a" }),
      new SystemMessage({ content: "Budget: 3 calls left.", id: "budget" }),
      new ToolMessage({ content: "C", tool_call_id: "c", id: "result-c" }),
      new HumanMessage({ content: "next", id: "next" }),
    ];
    const { messages: out } = await compactLangChainMessages(messages, { contextLimit: 200_000 });
    expect(out.map((message) => [message.type, message.text])).toEqual([
      ["human", "Read both."],
      ["ai", ""],
      ["tool", "A"],
      ["tool", INTERRUPTED_NOTICE],
      ["tool", "C"],
      ["system", "Budget: 3 calls left."],
      ["human", "next"],
    ]);
    expect(out.map((message) => (message as ToolMessage).tool_call_id)).toEqual([
      undefined,
      undefined,
      "a",
      "b",
      "c",
      undefined,
      undefined,
    ]);
    expect(pairingProblems(out)).toEqual([]);
  });

  it("names its options when they are not an object, as the other helpers", async () => {
    for (const options of [undefined, null, 5])
      await expect(compactLangChainMessages(loop(2), options as never)).rejects.toThrow(
        ValidationError,
      );
  });

  it("judges the context on the last reply's usage_metadata, not only the local estimate", async () => {
    const small = loop(3);
    expect((await compactLangChainMessages(small, { contextLimit: 8_000 })).compacted).toBe(false);
    // The provider counted far more (system prompt, tools, images): the same messages compact.
    const reported = loop(3, 7_500);
    const { compacted, contextUsed } = await compactLangChainMessages(reported, {
      contextLimit: 8_000,
    });
    expect(compacted).toBe(true);
    expect(contextUsed).toBeGreaterThanOrEqual(7_500);
    // The caller's own measure comes first.
    const told = await compactLangChainMessages(reported, {
      contextLimit: 8_000,
      contextUsed: 3_000,
    });
    expect([told.compacted, told.contextUsed]).toEqual([false, 3_000]);
  });

  it("leaves the caller's messages as they were, nothing frozen", async () => {
    const messages = loop(30);
    const before = JSON.stringify(messages);
    const { compacted } = await compactLangChainMessages(messages, { contextLimit: 30_000 });
    expect(compacted).toBe(true);
    expect(JSON.stringify(messages)).toBe(before);
    const call = (messages[2] as AIMessage).tool_calls![0]!;
    expect([Object.isFrozen(messages[2]), Object.isFrozen(call.args)]).toEqual([false, false]);
  });

  // A stateless server calls it anew with each request: the same history must give the same
  // request, byte for byte (the prompt cache reads it), and a shared archive each record once.
  // Before, each call's session drew new handles: new bytes at every call, a new record each.
  it("gives the same history the same request and handles at every call, each record kept once", async () => {
    const archive = new MemoryArchive();
    const long = loop(30);
    // A request longer than a quarter of the window: clamped, its cut archived too.
    long.push(new HumanMessage({ content: `Then apply this: ${"change ".repeat(6_000)}` }));
    const texts: string[] = [];
    for (let call = 0; call < 3; call += 1) {
      const { messages, compacted } = await compactLangChainMessages(long, {
        contextLimit: 30_000,
        archive,
      });
      expect(compacted).toBe(true);
      texts.push(JSON.stringify(messages.map((message) => message.content)));
    }
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    const handles = [...texts[0]!.matchAll(/\[recall (r\d+-[0-9a-f]+)\]/g)].map(
      (match) => match[1]!,
    );
    expect(handles.length).toBeGreaterThan(1);
    // Under the stateless paths' id when none is given, as the other helpers keep them.
    for (const handle of handles) expect(archive.get("stateless", handle)).toBeDefined();
    // Three calls kept no more records than one call makes.
    const once = new MemoryArchive();
    await compactLangChainMessages(long, { contextLimit: 30_000, archive: once });
    expect(archive.records("stateless")).toHaveLength(once.records("stateless").length);
  });

  // As the other one-call helpers (test/promises/stateless-failures.test.ts, review 55b #5): a
  // summary far over maxSummaryTokens was dropped as a skip and never reported.
  it("resolves with summary_too_long in error when the summary is far over maxSummaryTokens", async () => {
    const messages: BaseMessage[] = [];
    for (let step = 0; step < 30; step += 1)
      messages.push(
        new HumanMessage({ content: `Request ${step}: ${"keep the tests green, ".repeat(40)}` }),
        new AIMessage({ content: `Done with ${step}: ${"all good. ".repeat(40)}` }),
      );
    const client = new MockLlmClient({ defaultReply: "summary ".repeat(20_000) });
    const { error, compacted } = await compactLangChainMessages(messages, {
      contextLimit: 8_000,
      llmCompactor: new LLMCompactor(client),
    });
    // The transcript (about 12k tokens) goes in parts within the 8k window, sent together: the
    // first reply refuses the summary.
    expect(client.callCount).toBeGreaterThanOrEqual(1);
    expect(client.callCount).toBeLessThanOrEqual(4);
    expect(error?.code).toBe("summary_too_long");
    expect(compacted).toBe(true);
  });
});
