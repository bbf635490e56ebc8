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
