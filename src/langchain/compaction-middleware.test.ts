import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import {
  AIMessage,
  type AnyAgentMiddleware,
  type BaseMessage,
  createAgent,
  HumanMessage,
  SystemMessage,
  summarizationMiddleware,
  tool,
} from "langchain";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  AnthropicLikeModel,
  pairingProblems,
  readFileTool,
} from "../../test/support/langchain-anthropic.js";
import { type CompactionEvent, LLMCompactor, ThresholdCompactor } from "../index.js";
import {
  type CompactionMiddlewareOptions,
  compactionMiddleware,
  LangChainLlmClient,
} from "./index.js";

const USER_REQUEST = "Read every file under src/. Never touch package-lock.json.";

/** A model that reads `steps` files, one call a reply, then answers. */
function readingModel(steps: number, options: { contextWindow?: number; thinking?: boolean } = {}) {
  const like = new AnthropicLikeModel({ contextWindow: 30_000, ...options });
  for (let step = 0; step < steps; step += 1) {
    like.reply({
      text: `Reading file ${step}.`,
      toolCalls: [{ name: "read_file", input: { path: `src/file-${step}.ts` } }],
    });
  }
  return like;
}

async function runAgent(
  like: AnthropicLikeModel,
  middleware: readonly AnyAgentMiddleware[],
  threadId = "thread-1",
) {
  const agent = createAgent({
    model: like.model,
    tools: [readFileTool],
    middleware,
    systemPrompt: "You are a coding agent.",
  });
  return agent.invoke(
    { messages: [new HumanMessage(USER_REQUEST)] },
    { configurable: { thread_id: threadId }, recursionLimit: 1_000 },
  );
}

/** LangChain's own summarizationMiddleware (its option types do not check under this repo's tsconfig). */
function peer(model: unknown, trigger: object, keep: object): AnyAgentMiddleware {
  const make = summarizationMiddleware as unknown as (options: unknown) => AnyAgentMiddleware;
  return make({ model, trigger, keep });
}

/** Masking only, within the one turn of the loop: every placeholder names its recall handle. */
const maskingInTurn = () =>
  new ThresholdCompactor({ threshold: 0.5, keepRecentToolUses: 3, toolCompaction: "redact" });

/** Billed input at Claude's cache prices: writes 1.25x, reads 0.1x. */
const billed = (like: AnthropicLikeModel) =>
  like.requests.reduce((sum, request) => {
    const written = request.tokens - request.cacheRead;
    return sum + written * 1.25 + request.cacheRead * 0.1;
  }, 0);

describe("compactionMiddleware in a createAgent loop", () => {
  it("keeps a long tool loop inside the window, every request valid (pairing, signed thinking)", async () => {
    // The control: the same loop without the middleware outgrows the window and is refused.
    const bare = readingModel(60).reply({ text: "Done." });
    await expect(runAgent(bare, [])).rejects.toThrow(/prompt is too long/);

    const events: CompactionEvent[] = [];
    const like = readingModel(60).reply({ text: "Done." });
    const compaction = compactionMiddleware({
      contextLimit: 30_000,
      onEvent: (e) => events.push(e),
    });
    const result = await runAgent(like, [compaction]);

    expect(result.messages.at(-1)?.text).toBe("Done.");
    expect(like.refusals).toEqual([]);
    expect(like.requests).toHaveLength(61);
    expect(events.some((event) => event.type === "compaction_end")).toBe(true);
    for (const call of like.model.calls) expect(pairingProblems(call.messages)).toEqual([]);
    expect(Math.max(...like.requests.map((request) => request.tokens))).toBeLessThan(30_000);
    // The user's request goes out verbatim on the last request still.
    expect(like.model.calls.at(-1)?.messages.some((m) => m.text.includes(USER_REQUEST))).toBe(true);
  });

  it("does what summarizationMiddleware cannot: its edit leaves signed thinking stale", async () => {
    const summarizer = fakeModel();
    for (let index = 0; index < 20; index += 1) summarizer.respond(new AIMessage("Summary."));
    const theirs = readingModel(40).reply({ text: "Done." });
    const summarization = peer(summarizer, { tokens: 15_000 }, { messages: 10 });
    await expect(runAgent(theirs, [summarization])).rejects.toThrow(/thinking/);

    const ours = readingModel(40).reply({ text: "Done." });
    await runAgent(ours, [compactionMiddleware({ contextLimit: 30_000 })]);
    expect(ours.refusals).toEqual([]);
  });

  it("at their trigger, bills less than summarizationMiddleware and keeps the user's words and every path", async () => {
    const summarizer = fakeModel();
    for (let index = 0; index < 200; index += 1) summarizer.respond(new AIMessage("Summary."));
    const theirs = readingModel(100, { thinking: false }).reply({ text: "Done." });
    await runAgent(theirs, [peer(summarizer, { tokens: 15_000 }, { messages: 10 })]);
    // Masking at the same trigger (half the window), down to a tenth of it, as one rewrite.
    const masking = new ThresholdCompactor({
      toolCompaction: "summarize_or_redact",
      threshold: 0.5,
      targetUtilization: 0.1,
      keepRecentToolUses: 3,
      dropOldest: true,
      keepPathMentions: true,
    });
    const ours = readingModel(100, { thinking: false }).reply({ text: "Done." });
    await runAgent(ours, [compactionMiddleware({ contextLimit: 30_000, compactor: masking })]);

    expect(ours.refusals).toEqual([]);
    // Their summary requests are not even counted here.
    expect(billed(ours)).toBeLessThan(billed(theirs));
    const lastRequest = (like: AnthropicLikeModel) =>
      like.model.calls
        .at(-1)!
        .messages.map((message) => message.text)
        .join("\n");
    const paths = (like: AnthropicLikeModel) =>
      new Set(lastRequest(like).match(/src\/file-\d+\.ts/g) ?? []).size;
    expect(lastRequest(ours)).toContain(USER_REQUEST);
    expect(lastRequest(theirs)).not.toContain(USER_REQUEST);
    // The file ledger names every file read; theirs only those of the last ten messages.
    expect(paths(ours)).toBe(100);
    expect(paths(theirs)).toBeLessThanOrEqual(10);
  });

  it("lets the model recall a compacted tool result with recall_compacted", async () => {
    const like = readingModel(40, { thinking: false });
    let handle: string | undefined;
    like.reply((messages: BaseMessage[]) => {
      for (const message of messages) {
        const found = /\[recall (r\d+-[0-9a-f]+)\]/.exec(message.text);
        if (found !== null && message.type === "tool") handle = found[1];
      }
      return { toolCalls: [{ name: "recall_compacted", input: { handle: handle ?? "none" } }] };
    });
    like.reply({ text: "Recalled." });
    const compaction = compactionMiddleware({
      contextLimit: 30_000,
      compactor: maskingInTurn(),
    });
    const result = await runAgent(like, [compaction]);

    expect(handle).toBeDefined();
    const answer = result.messages.findLast((message) => message.type === "tool");
    const record = await compaction.sessionOf("thread-1")!.recall(handle!);
    expect(record.kind).toBe("tool_result");
    expect(record.kind === "tool_result" && typeof record.original.content === "string").toBe(true);
    const original = record.kind === "tool_result" ? String(record.original.content) : "";
    expect(original).toMatch(/^\/\/ src\/file-\d+\.ts/);
    expect(answer?.text).toContain(original);
    expect(like.refusals).toEqual([]);
  });

  it("measures the context from usage_metadata, cache reads included, and counts dollars", async () => {
    const like = readingModel(12, { thinking: false }).reply({ text: "Done." });
    const compaction = compactionMiddleware({ model: "claude-sonnet-5-5", contextLimit: 200_000 });
    await runAgent(like, [compaction]);
    const session = compaction.sessionOf("thread-1")!;

    // The last request read most of its prompt from the cache; the measure counts it all.
    const last = like.requests.at(-1)!;
    expect(last.cacheRead).toBeGreaterThan(last.tokens / 2);
    expect(session.contextUsed).toBeGreaterThanOrEqual(last.tokens);
    const cost = session.cost!;
    expect(cost.requests.count).toBe(13);
    expect(cost.requests.tokens.cacheReadInputTokens).toBeGreaterThan(0);
    expect(cost.total.cost.totalUsd).toBeGreaterThan(0);
  });

  it("changes nothing when the summarizer fails, where summarizationMiddleware writes the error in", async () => {
    const failing = () => fakeModel().alwaysThrow(new Error("overloaded"));
    const history = [new HumanMessage(USER_REQUEST)];
    const theirsModel = fakeModel().respond(new AIMessage("ok"));
    const summarization = peer(failing(), { messages: 1 }, { messages: 0 });
    const theirs = await createAgent({
      model: theirsModel,
      tools: [],
      middleware: [summarization],
    }).invoke({
      messages: history,
    });
    expect(theirs.messages[0]?.text).toMatch(/Error generating summary/);

    const events: CompactionEvent[] = [];
    const options: CompactionMiddlewareOptions = {
      contextLimit: 2_000,
      compactor: false,
      trimOnOverflow: false,
      maxBlockShare: 1,
      llmCompactor: new LLMCompactor(new LangChainLlmClient({ model: failing() }), {
        keepRecentTurns: 1,
      }),
      onEvent: (event) => events.push(event),
    };
    const oursModel = fakeModel().respond(new AIMessage("ok"));
    const long = [
      new HumanMessage(`Earlier request. ${"context ".repeat(500)}`),
      new AIMessage(`Earlier answer. ${"finding ".repeat(250)}`),
      new HumanMessage(USER_REQUEST),
    ];
    const ours = await createAgent({
      model: oursModel,
      tools: [],
      middleware: [compactionMiddleware(options)],
    }).invoke({
      messages: long,
    });
    expect(events.some((event) => event.type === "compaction_failed")).toBe(true);
    expect(oursModel.calls[0]?.messages.map((message) => message.text)).toEqual(
      long.map((m) => m.text),
    );
    // The state holds the very messages it was given, the reply after them.
    expect(ours.messages.slice(0, 3)).toEqual(long);
    expect(ours.messages.slice(0, 3).every((message, index) => message === long[index])).toBe(true);
  });
});

describe("compactionMiddleware and one oversized result", () => {
  it("clamps a tool output over a quarter of the window in the state, the original recallable", async () => {
    const huge = tool(async () => `BEGIN ${"log line\n".repeat(20_000)} END`, {
      name: "dump_logs",
      description: "Dumps the build logs",
      schema: z.object({}),
    });
    const like = new AnthropicLikeModel({ contextWindow: 30_000, thinking: false });
    like.reply({ toolCalls: [{ name: "dump_logs", input: {} }] }, { text: "Done." });
    const compaction = compactionMiddleware({ contextLimit: 30_000 });
    const agent = createAgent({ model: like.model, tools: [huge], middleware: [compaction] });
    const result = await agent.invoke(
      { messages: [new HumanMessage("Why does the build fail?")] },
      { configurable: { thread_id: "logs" } },
    );

    expect(like.refusals).toEqual([]);
    const output = result.messages.find((message) => message.type === "tool")!;
    expect(output.text.length).toBeLessThan(40_000);
    expect(output.text.startsWith("BEGIN")).toBe(true);
    const handle = /\[recall (r\d+-[0-9a-f]+)\]/.exec(output.text)?.[1];
    const record = await compaction.sessionOf("logs")!.recall(handle!);
    expect(JSON.stringify(record)).toContain(" END");
  });
});

describe("compactionMiddleware and calls left unanswered", () => {
  it("closes a call a new request went on without, where the provider would refuse it", async () => {
    const history = () => [
      new HumanMessage({ content: "Read src/a.ts.", id: "u1" }),
      new AIMessage({
        id: "a1",
        content: "",
        tool_calls: [
          { id: "toolu_lost", name: "read_file", args: { path: "src/a.ts" }, type: "tool_call" },
        ],
      }),
      new HumanMessage({ content: "Never mind: what is 2 + 2?", id: "u2" }),
    ];
    const bare = new AnthropicLikeModel({ thinking: false }).reply({ text: "4" });
    const refused = createAgent({ model: bare.model, tools: [readFileTool] });
    await expect(refused.invoke({ messages: history() })).rejects.toThrow(/tool_use/);

    const like = new AnthropicLikeModel({ thinking: false }).reply({ text: "4" });
    const agent = createAgent({
      model: like.model,
      tools: [readFileTool],
      middleware: [compactionMiddleware({ contextLimit: 30_000 })],
    });
    const result = await agent.invoke({ messages: history() });
    expect(like.refusals).toEqual([]);
    expect(result.messages.map((message) => message.type)).toEqual([
      "human",
      "ai",
      "tool",
      "human",
      "ai",
    ]);
    expect(result.messages[2]).toMatchObject({ tool_call_id: "toolu_lost", status: "error" });
    expect(pairingProblems(like.model.calls[0]!.messages)).toEqual([]);
  });
});

describe("compactionMiddleware threads", () => {
  it("follows a thread across invokes from a checkpointer without starting over", async () => {
    const like = readingModel(30, { thinking: false }).reply({ text: "First done." });
    like.reply(
      { toolCalls: [{ name: "read_file", input: { path: "src/more.ts" } }] },
      { text: "Second done." },
    );
    const sessions: string[] = [];
    const compaction = compactionMiddleware({
      contextLimit: 30_000,
      onSession: (_session, threadId) => sessions.push(threadId),
    });
    const agent = createAgent({
      model: like.model,
      tools: [readFileTool],
      middleware: [compaction],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "resumed" }, recursionLimit: 500 };
    await agent.invoke({ messages: [new HumanMessage(USER_REQUEST)] }, config);
    const session = compaction.sessionOf("resumed");
    const second = await agent.invoke(
      { messages: [new HumanMessage("Now read src/more.ts.")] },
      config,
    );

    expect(second.messages.at(-1)?.text).toBe("Second done.");
    expect(sessions).toEqual(["resumed"]);
    expect(compaction.sessionOf("resumed")).toBe(session);
    expect(like.refusals).toEqual([]);
    for (const call of like.model.calls) expect(pairingProblems(call.messages)).toEqual([]);
  });

  it("starts a new session when the thread's messages no longer start with what it saw", async () => {
    const model = fakeModel()
      .respond(new AIMessage({ content: "one", usage_metadata: usage(20) }))
      .respond(new AIMessage({ content: "two", usage_metadata: usage(30) }))
      .respond(new AIMessage({ content: "three", usage_metadata: usage(20) }));
    const sessions: string[] = [];
    const compaction = compactionMiddleware({
      contextLimit: 10_000,
      onSession: (_session, threadId) => sessions.push(threadId),
    });
    const agent = createAgent({ model, tools: [], middleware: [compaction] });
    const config = { configurable: { thread_id: "client" } };
    const first = await agent.invoke(
      { messages: [new HumanMessage({ content: "a", id: "u1" })] },
      config,
    );
    // A client that sends the whole history again continues the session…
    await agent.invoke(
      { messages: [...first.messages, new HumanMessage({ content: "b", id: "u2" })] },
      config,
    );
    expect(sessions).toEqual(["client"]);
    expect(compaction.sessionOf("client")?.messages).toHaveLength(4);
    // …another history starts a new one.
    await agent.invoke({ messages: [new HumanMessage({ content: "c", id: "u3" })] }, config);
    expect(sessions).toEqual(["client", "client"]);
    expect(compaction.sessionOf("client")?.messages).toHaveLength(2);
  });

  it("recalls what an earlier session of the thread archived, after the messages were edited", async () => {
    const like = readingModel(40, { thinking: false }).reply({ text: "Done." });
    const sessions: string[] = [];
    const compaction = compactionMiddleware({
      contextLimit: 30_000,
      compactor: maskingInTurn(),
      onSession: (_session, threadId) => sessions.push(threadId),
    });
    const agent = createAgent({
      model: like.model,
      tools: [readFileTool],
      middleware: [compaction],
    });
    const config = { configurable: { thread_id: "edited" }, recursionLimit: 500 };
    const first = await agent.invoke({ messages: [new HumanMessage(USER_REQUEST)] }, config);
    const masked = first.messages.find(
      (message) => message.type === "tool" && message.text.includes("[recall "),
    );
    const handle = /\[recall (r\d+-[0-9a-f]+)\]/.exec(masked!.text)![1]!;

    // The client drops the last answer and asks again: the thread's messages were edited.
    like.reply(
      { toolCalls: [{ name: "recall_compacted", input: { handle } }] },
      { text: "Recalled." },
    );
    const edited = [...first.messages.slice(0, -1), new HumanMessage("Show me that file again.")];
    const second = await agent.invoke({ messages: edited }, config);

    expect(sessions).toEqual(["edited", "edited"]);
    const answer = second.messages.findLast((message) => message.type === "tool")!;
    expect((answer as unknown as { status?: string }).status).not.toBe("error");
    expect(answer.text).toMatch(/^\[tool result toolu_standin_\d+\] \/\/ src\/file-\d+\.ts/);
    expect(like.refusals).toEqual([]);
  });

  it("pins the leading system message: it stays first, whole, after compaction", async () => {
    const like = readingModel(40, { thinking: false }).reply({ text: "Done." });
    const compaction = compactionMiddleware({ contextLimit: 30_000 });
    const agent = createAgent({
      model: like.model,
      tools: [readFileTool],
      middleware: [compaction],
    });
    const rules = new SystemMessage({
      content: "Repository rules: tabs, not spaces.",
      id: "rules",
    });
    const result = await agent.invoke(
      { messages: [rules, new HumanMessage(USER_REQUEST)] },
      { configurable: { thread_id: "pinned" }, recursionLimit: 500 },
    );
    expect(result.messages[0]).toBe(rules);
    // Compacted: far fewer messages than the 82 the loop wrote (46: the stand-in's usage counts
    // the request as sent, without the LangChain bookkeeping that once leaked into it and made it
    // look longer, so compaction starts later than the 40 this once allowed).
    expect(result.messages.length).toBeLessThan(50);
    expect(like.requests.at(-1)?.body["system"]).toContain("Repository rules");
    expect(like.refusals).toEqual([]);
  });

  it("refuses bad options by name, at once", () => {
    expect(() => compactionMiddleware({ contextLimit: -1 })).toThrow(/contextLimit/);
    expect(() => compactionMiddleware({ contextLimit: 1_000, maxThreads: 0 })).toThrow(
      /maxThreads/,
    );
    expect(() =>
      compactionMiddleware({ contextLimit: 1_000, recallTool: "yes" as unknown as boolean }),
    ).toThrow(/recallTool/);
    expect(compactionMiddleware({ contextLimit: 1_000, archive: false }).tools ?? []).toEqual([]);
    expect(compactionMiddleware({ contextLimit: 1_000 }).tools?.map((t) => t.name)).toEqual([
      "recall_compacted",
    ]);
  });
});

function usage(input: number) {
  return { input_tokens: input, output_tokens: 5, total_tokens: input + 5 } as never;
}
