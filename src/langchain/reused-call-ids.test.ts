import { fakeModel } from "@langchain/core/testing";
import {
  AIMessage,
  type BaseMessage,
  createAgent,
  HumanMessage,
  ToolMessage,
  tool,
} from "langchain";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { pairingProblems } from "../../test/support/langchain-anthropic.js";
import { toAnthropicMessages } from "../anthropic/request.js";
import { requestProblems } from "../testing/anthropic-rules/request.js";
import { withDistinctCallIds } from "./distinct-call-ids.js";
import {
  compactionMiddleware,
  compactLangChainMessages,
  fromLangChainMessages,
  toLangChainMessages,
} from "./index.js";

/**
 * A model whose server numbers each reply's calls (`call_0` every time, as OpenAI-compatible
 * hosts do): the middleware refused the second call as a duplicate id (review 52d's finding
 * 6), where the agent without it, and `compactLangChainMessages`, went on.
 */

const read = tool(
  async ({ path }: { path: string }) => `${path}\n${"const x = 1;\n".repeat(400)}`,
  {
    name: "read_file",
    description: "Reads a file",
    schema: z.object({ path: z.string() }),
  },
);

function numberingModel(calls: number) {
  const model = fakeModel();
  for (let call = 0; call < calls; call += 1) {
    const toolCall = { id: "call_0", name: "read_file", args: { path: `f${call}.ts` } };
    model.respond(new AIMessage({ content: `Reading ${call}.`, tool_calls: [toolCall] }));
  }
  model.respond(new AIMessage("Done."));
  return model;
}

describe("tool call ids a provider reuses, through the LangChain middleware", () => {
  it("runs the agent, compacting, every call answered; the session sends each id once to Anthropic", async () => {
    const events: string[] = [];
    const compaction = compactionMiddleware({
      contextLimit: 6_000,
      onSession: (session) => session.on((event) => events.push(event.type)),
    });
    const agent = createAgent({
      model: numberingModel(8),
      tools: [read],
      middleware: [compaction],
    });
    const state = await agent.invoke(
      { messages: [new HumanMessage("Read eight files.")] },
      { recursionLimit: 100 },
    );
    const messages = state.messages as BaseMessage[];
    expect(messages.at(-1)?.text).toBe("Done.");
    expect(pairingProblems(messages)).toEqual([]);
    expect(events).toContain("compaction_end");
    const session = compaction.sessionOf()!;
    const sent = toAnthropicMessages(session.messages);
    expect(requestProblems(sent)).toEqual([]);
    const ids = sent.flatMap((message) =>
      typeof message.content === "string"
        ? []
        : message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
    );
    expect(ids.length).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe("call_0");
    expect(ids.at(-1)).toBe(`call_0_${ids.length}`);
  });

  // Review 53's finding 3: a masked tool message took the fields (id, name, artifact) of the
  // latest tool message of its call id.
  it("gives each masked tool message its own id and name", async () => {
    const list = tool(async ({ dir }: { dir: string }) => `${dir}\n${"entry.ts\n".repeat(500)}`, {
      name: "list_dir",
      description: "Lists a dir",
      schema: z.object({ dir: z.string() }),
    });
    const model = fakeModel();
    for (let call = 0; call < 8; call += 1) {
      const toolCall =
        call % 2 === 0
          ? { id: "call_0", name: "read_file", args: { path: `f${call}.ts` } }
          : { id: "call_0", name: "list_dir", args: { dir: `d${call}` } };
      model.respond(new AIMessage({ content: `Step ${call}.`, tool_calls: [toolCall] }));
    }
    model.respond(new AIMessage("Done."));
    const agent = createAgent({
      model,
      tools: [read, list],
      middleware: [compactionMiddleware({ contextLimit: 6_000 })],
    });
    const state = await agent.invoke(
      { messages: [new HumanMessage("Go.")] },
      { recursionLimit: 100 },
    );
    const messages = state.messages as BaseMessage[];
    const ids = messages.map((message) => message.id).filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    let called: string | undefined;
    for (const message of messages) {
      if (message.type === "ai") called = (message as AIMessage).tool_calls?.[0]?.name;
      if (message.type === "tool") expect((message as { name?: string }).name).toBe(called);
    }
  });
});

// Review 58c: the middleware sent the model the state's ids as they came (`call_0` at every
// step), which `ChatAnthropic` and `ChatOpenAI` send as the API's own: refused twice.
describe("the middleware's requests, a call id reused", () => {
  /** Each request's call ids and result ids, in order (`call:<id>`, `result:<id>`, `content:<id>`). */
  const idsOf = (messages: readonly BaseMessage[]) =>
    messages.flatMap((message) => {
      if (message instanceof ToolMessage) return [`result:${message.tool_call_id}`];
      if (!(message instanceof AIMessage)) return [];
      const content = Array.isArray(message.content) ? message.content : [];
      return [
        ...content.flatMap((part) =>
          part.type === "tool_use" ? [`content:${(part as { id: string }).id}`] : [],
        ),
        ...(message.tool_calls ?? []).map((call) => `call:${call.id}`),
      ];
    });
  const calls = (ids: readonly string[]) => ids.filter((id) => id.startsWith("call:"));

  it("sends each id once, each call named as in the request before; the state keeps the provider's", async () => {
    const model = fakeModel();
    for (let call = 0; call < 5; call += 1) {
      const input = { path: `f${call}.ts` };
      model.respond(
        new AIMessage({
          // Anthropic's shape: the call in the content too, where ChatAnthropic reads it.
          content: [
            { type: "text", text: `Reading ${call}.` },
            { type: "tool_use", id: "call_0", name: "read_file", input },
          ],
          tool_calls: [{ id: "call_0", name: "read_file", args: input }],
        }),
      );
    }
    model.respond(new AIMessage("Done."));
    const agent = createAgent({
      model,
      tools: [read],
      middleware: [compactionMiddleware({ contextLimit: 200_000 })],
    });
    const state = await agent.invoke(
      { messages: [new HumanMessage("Read five files.")] },
      { recursionLimit: 100 },
    );
    const requests = model.calls.map((call) => idsOf(call.messages as BaseMessage[]));
    expect(requests).toHaveLength(6);
    for (const [index, ids] of requests.entries()) {
      expect(new Set(calls(ids)).size).toBe(calls(ids).length);
      // Stable: a request begins with the one before it, as it was sent.
      if (index > 0) expect(ids.slice(0, requests[index - 1]!.length)).toEqual(requests[index - 1]);
    }
    expect(requests.at(-1)!.slice(-3)).toEqual([
      "content:call_0_5",
      "call:call_0_5",
      "result:call_0_5",
    ]);
    const kept = idsOf(state.messages as BaseMessage[]);
    expect(new Set(kept.map((id) => id.split(":")[1]))).toEqual(new Set(["call_0"]));
  });

  it("copies only the messages it renames, with their own fields and OpenAI's raw calls", () => {
    const reply = (path: string) =>
      new AIMessage({
        id: `reply-${path}`,
        content: "",
        tool_calls: [{ id: "call_0", name: "read", args: { path } }],
        additional_kwargs: {
          tool_calls: [
            { id: "call_0", type: "function", function: { name: "read", arguments: "{}" } },
          ],
        },
        usage_metadata: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } as never,
      });
    const messages: BaseMessage[] = [
      new HumanMessage("Read."),
      reply("a"),
      new ToolMessage({ content: "A", tool_call_id: "call_0", artifact: { n: 1 } }),
      reply("b"),
      new ToolMessage({ content: "B", tool_call_id: "call_0", artifact: { n: 2 }, id: "t2" }),
    ];
    const sent = withDistinctCallIds(messages);
    for (let index = 0; index < 3; index += 1) expect(sent[index]).toBe(messages[index]);
    const [, , , ai, result] = sent as [never, never, never, AIMessage, ToolMessage];
    expect(ai.id).toBe("reply-b");
    expect(ai.tool_calls?.[0]).toMatchObject({ id: "call_0_2", args: { path: "b" } });
    expect((ai.additional_kwargs["tool_calls"] as { id: string }[])[0]?.id).toBe("call_0_2");
    expect((ai.usage_metadata as { total_tokens?: number } | undefined)?.total_tokens).toBe(12);
    expect([result.tool_call_id, result.id, result.artifact]).toEqual(["call_0_2", "t2", { n: 2 }]);
    // The caller's messages are not written to; a request without a reused id is itself.
    expect((messages[3] as AIMessage).tool_calls?.[0]?.id).toBe("call_0");
    const head = messages.slice(0, 3);
    expect(withDistinctCallIds(head)).toBe(head);
  });

  it("sends distinct ids while it compacts", async () => {
    const model = numberingModel(8);
    const events: string[] = [];
    const compaction = compactionMiddleware({
      contextLimit: 6_000,
      onSession: (session) => session.on((event) => events.push(event.type)),
    });
    const agent = createAgent({ model, tools: [read], middleware: [compaction] });
    await agent.invoke(
      { messages: [new HumanMessage("Read eight files.")] },
      { recursionLimit: 100 },
    );
    expect(model.callCount).toBe(9);
    expect(events).toContain("compaction_end");
    for (const call of model.calls) {
      const ids = calls(idsOf(call.messages as BaseMessage[]));
      expect(new Set(ids).size).toBe(ids.length);
      expect(pairingProblems(call.messages as BaseMessage[])).toEqual([]);
    }
  });
});

// Review 57d: `toLangChainMessages` and `compactLangChainMessages` gave a reused id back as it
// came, which `ChatAnthropic` and `ChatOpenAI` send as the API's own id (refused twice), where
// every other adapter's conversion and helper sends it as `<id>_<n>`.
describe("a call id reused, through toLangChainMessages and compactLangChainMessages", () => {
  const history = (): BaseMessage[] => [
    new HumanMessage("Read two files."),
    new AIMessage({
      content: "",
      tool_calls: [{ id: "call_0", name: "read", args: { path: "a" } }],
    }),
    new ToolMessage({ content: "A", tool_call_id: "call_0", artifact: { bytes: 1 } }),
    new AIMessage({
      content: "",
      tool_calls: [{ id: "call_0", name: "read", args: { path: "b" } }],
    }),
    new ToolMessage({ content: "B", tool_call_id: "call_0", artifact: { bytes: 2 } }),
  ];
  const pairs = (messages: readonly BaseMessage[]) =>
    messages.flatMap((message) =>
      message instanceof AIMessage
        ? (message.tool_calls ?? []).map((call) => `call ${call.id}`)
        : message instanceof ToolMessage
          ? [`result ${message.tool_call_id} ${JSON.stringify(message.artifact)}`]
          : [],
    );
  const expected = [
    "call call_0",
    'result call_0 {"bytes":1}',
    "call call_0_2",
    'result call_0_2 {"bytes":2}',
  ];

  it("sends the second call and its result as `<id>_2`, each result with its own artifact", async () => {
    expect(pairs(toLangChainMessages(fromLangChainMessages(history())))).toEqual(expected);
    const quiet = await compactLangChainMessages(history(), { contextLimit: 100_000 });
    expect(pairs(quiet.messages)).toEqual(expected);
    const due = [...history(), new AIMessage("Read."), new HumanMessage("x".repeat(40_000))];
    const compacted = await compactLangChainMessages(due, { contextLimit: 12_000 });
    expect(compacted.compacted).toBe(true);
    expect(pairs(compacted.messages)).toEqual(expected);
  });
});
