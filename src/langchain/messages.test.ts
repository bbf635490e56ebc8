import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  AgentSession,
  type Message,
  SUMMARY_PREFIX,
  SUMMARY_TURN_ID,
  ValidationError,
} from "../index.js";
import {
  compactLangChainMessages,
  fromLangChainMessages,
  toLangChainMessages,
  usageFromLangChain,
} from "./index.js";

/** A message's fields, as LangChain stores it (keys sorted: their order is not a difference). */
function stored(message: BaseMessage): unknown {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (typeof value !== "object" || value === null) return value;
    const entries = Object.entries(value).filter(([, field]) => field !== undefined);
    return Object.fromEntries(
      entries.sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sort(v)]),
    );
  };
  const { type, data } = message.toDict();
  return sort({ type, data });
}

/** An agent loop as ChatAnthropic writes it: thinking, text and tool_use in content, tool_calls beside. */
function anthropicLoop(): BaseMessage[] {
  return [
    new SystemMessage({ content: "You are a coding agent.", id: "sys" }),
    new HumanMessage({ content: "Fix the build.", id: "u1" }),
    new AIMessage({
      id: "msg_1",
      content: [
        { type: "thinking", thinking: "Read both files.", signature: "c2lnLTE=" },
        { type: "text", text: "Reading them.", citations: null },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
        { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b.ts" } },
      ],
      tool_calls: [
        { id: "toolu_1", name: "read_file", args: { path: "a.ts" }, type: "tool_call" },
        { id: "toolu_2", name: "read_file", args: { path: "b.ts" }, type: "tool_call" },
      ],
      usage_metadata: {
        input_tokens: 1_200,
        output_tokens: 80,
        total_tokens: 1_280,
        input_token_details: { cache_read: 1_000, cache_creation: 150 },
      } as never,
      response_metadata: { model_provider: "anthropic", stop_reason: "tool_use" },
    }),
    new ToolMessage({
      content: "export const a = 1;",
      tool_call_id: "toolu_1",
      name: "read_file",
      id: "t1",
      status: "success",
    }),
    new ToolMessage({
      content: [
        { type: "text", text: "b.ts is missing" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
      tool_call_id: "toolu_2",
      id: "t2",
      status: "error",
      artifact: { exitCode: 1 },
    }),
    new AIMessage({ id: "msg_2", content: "b.ts was never committed.", name: "model" }),
  ];
}

describe("fromLangChainMessages / toLangChainMessages", () => {
  it("round-trips an Anthropic-style agent loop without loss, modelling thinking, calls and results", () => {
    const input = anthropicLoop();
    const ours = fromLangChainMessages(input, { sessionId: "s" });
    expect(toLangChainMessages(ours).map(stored)).toEqual(input.map(stored));

    expect(ours.map((message) => message.role)).toEqual([
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    const reply = ours[2]!;
    expect(reply.id).toBe("msg_1");
    expect(reply.content.map((block) => block.type)).toEqual([
      "thinking",
      "text",
      "tool_use",
      "tool_use",
    ]);
    expect(reply.content[0]).toMatchObject({ thinking: "Read both files.", signature: "c2lnLTE=" });
    // Both tool messages are one message of results; an error status is an error result.
    const results = ours[3]!.content;
    expect(results).toMatchObject([
      { type: "tool_result", toolUseId: "toolu_1", content: "export const a = 1;", isError: false },
      { type: "tool_result", toolUseId: "toolu_2", isError: true },
    ]);
    expect(results[1]).toMatchObject({
      content: [
        { type: "text" },
        { type: "image", source: { type: "base64", mediaType: "image/png" } },
      ],
    });
    expect(ours.every((message) => message.turnId.number === 1)).toBe(true);
    // A session takes them as they are.
    const session = new AgentSession({ contextLimit: 200_000, sessionId: "s" });
    session.append(...ours);
    expect(session.messages).toHaveLength(5);
  });

  it("round-trips LangChain's standard blocks: signed reasoning, tool_call blocks, images, strings", () => {
    const input: BaseMessage[] = [
      new HumanMessage({
        id: "u1",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image", url: "https://example.com/a.png" },
          { type: "image", data: "AAAA", mimeType: "image/jpeg" },
          { type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lG" } },
          { type: "file", url: "https://example.com/spec.pdf" },
        ],
      }),
      new AIMessage({
        id: "a1",
        content: [
          { type: "reasoning", reasoning: "Two images.", signature: "sig" },
          { type: "reasoning", reasoning: "an unsigned summary" },
          { type: "tool_call", id: "call_1", name: "describe", args: { n: 2 } },
        ],
        tool_calls: [{ id: "call_1", name: "describe", args: { n: 2 }, type: "tool_call" }],
        response_metadata: { output_version: "v1", model_provider: "openai" },
      }),
      new ToolMessage({ content: "two cats", tool_call_id: "call_1", id: "t1" }),
      new AIMessage({ id: "a2", content: "", tool_calls: [] }),
    ];
    const ours = fromLangChainMessages(input, { sessionId: "s" });
    expect(toLangChainMessages(ours).map(stored)).toEqual(input.map(stored));
    expect(ours[0]!.content.map((block) => block.type)).toEqual([
      "text",
      "image",
      "image",
      "image",
      "opaque",
    ]);
    // Signed reasoning is thinking (kept whole or removed whole); unsigned is carried as it came.
    expect(ours[1]!.content.map((block) => block.type)).toEqual(["thinking", "opaque", "tool_use"]);
  });

  // Review 57d: `ChatAnthropic` with `outputVersion: "v1"` wraps a redacted_thinking block in a
  // `non_standard` one, and sends its `value` back. Carried whole, a compaction that made the
  // thinking around it stale removed that and left it, which the API refuses.
  it("reads a redacted_thinking block the standard content wraps (non_standard) as redacted thinking", async () => {
    const wrapped = (index: number) => ({
      type: "non_standard",
      value: { type: "redacted_thinking", data: `redacted ${index}` },
      index,
    });
    const input: BaseMessage[] = [new HumanMessage({ id: "u1", content: "Read them." })];
    for (let index = 0; index < 8; index += 1) {
      const call = { id: `c${index}`, name: "read", args: { index } };
      input.push(
        new AIMessage({
          id: `a${index}`,
          content: [
            { type: "reasoning", reasoning: "Next.", signature: `sig${index}` },
            wrapped(index),
            { type: "tool_call", ...call },
          ] as never,
          tool_calls: [{ ...call, type: "tool_call" }],
          response_metadata: { output_version: "v1", model_provider: "anthropic" },
        }),
        new ToolMessage({
          id: `t${index}`,
          tool_call_id: call.id,
          content: "const x = 1;\n".repeat(400),
        }),
      );
    }
    const ours = fromLangChainMessages(input, { sessionId: "s" });
    expect(ours[1]!.content.map((block) => block.type)).toEqual([
      "thinking",
      "redacted_thinking",
      "tool_use",
    ]);
    expect(toLangChainMessages(ours).map(stored)).toEqual(input.map(stored));
    const { messages, compacted } = await compactLangChainMessages(input, { contextLimit: 12_000 });
    expect(compacted).toBe(true);
    const kept = messages.flatMap((message) =>
      message.type === "ai" && Array.isArray(message.content)
        ? message.content.map((part) => (part as { type: string }).type)
        : [],
    );
    // Whatever thinking the compaction removed went whole: no wrapped block is left without it.
    expect(kept.filter((type) => type === "non_standard")).toHaveLength(
      kept.filter((type) => type === "reasoning").length,
    );
  });

  it("keeps tool calls the content does not show, in their order, and a message's missing id missing", () => {
    const input: BaseMessage[] = [
      new HumanMessage("go"),
      new AIMessage({
        content: [{ type: "tool_use", id: "c2", name: "run", input: { step: 2 } }],
        tool_calls: [
          { id: "c1", name: "run", args: { step: 1 }, type: "tool_call" },
          { id: "c2", name: "run", args: { step: 2 }, type: "tool_call" },
        ],
      }),
      new ToolMessage({ content: "one", tool_call_id: "c1" }),
      new ToolMessage({ content: "two", tool_call_id: "c2" }),
    ];
    const ours = fromLangChainMessages(input);
    expect(
      ours[1]!.content.map((block) => (block.type === "tool_use" ? block.id : block.type)),
    ).toEqual(["c2", "c1"]);
    const back = toLangChainMessages(ours);
    expect(back.map(stored)).toEqual(input.map(stored));
    expect(back.map((message) => message.id)).toEqual([undefined, undefined, undefined, undefined]);
    // Ours have ids all the same: unique in the conversation.
    expect(new Set(ours.map((message) => message.id)).size).toBe(ours.length);
  });

  it("marks what the library wrote, and reads the mark back: a summary is never the user's word", () => {
    const summary: Message = {
      role: "user",
      id: "summary-1",
      sessionId: "s",
      turnId: { ...SUMMARY_TURN_ID },
      createdAt: new Date(0),
      content: [{ type: "text", text: `${SUMMARY_PREFIX}The user wants the build fixed.` }],
      generated: "summary",
    };
    const [message] = toLangChainMessages([summary]);
    expect(message).toBeInstanceOf(HumanMessage);
    expect(message?.id).toBe("summary-1");
    expect(message?.additional_kwargs).toEqual({ agent_compaction: "summary" });
    const [again] = fromLangChainMessages([message!, new HumanMessage("Next.")]);
    expect(again).toMatchObject({ generated: "summary", turnId: SUMMARY_TURN_ID });
  });

  it("names the path of each malformed message or field", () => {
    const problems = (messages: unknown[]) => {
      try {
        fromLangChainMessages(messages);
      } catch (error) {
        if (!ValidationError.isInstance(error)) throw error;
        return error.issues.map((issue) => issue.path.join("."));
      }
      return [];
    };
    class Document {
      pageContent = "text";
    }
    expect(problems([new HumanMessage("a"), { type: "tool", content: "x" }])).toEqual([
      "1.tool_call_id",
    ]);
    expect(
      problems([new AIMessage({ content: "", tool_calls: [{ name: "run", args: {} }] })]),
    ).toEqual(["0.tool_calls.0.id"]);
    expect(
      problems([new ToolMessage({ content: "x", tool_call_id: "c1", artifact: new Document() })]),
    ).toEqual(["0.artifact"]);
    expect(problems([new ChatMessage("hello", "critic")])).toEqual(["0.type"]);
    expect(
      problems([
        new HumanMessage({ content: "a", id: "same" }),
        new HumanMessage({ content: "b", id: "same" }),
      ]),
    ).toEqual(["1.id"]);
    expect(() => fromLangChainMessages([], { firstTurnNumber: 0 })).toThrow(/firstTurnNumber/);
  });
});

describe("usageFromLangChain", () => {
  it("takes cache reads and writes out of input_tokens, which sums them", () => {
    expect(
      usageFromLangChain({
        input_tokens: 1_200,
        output_tokens: 80,
        input_token_details: { cache_read: 1_000, cache_creation: 150 },
      }),
    ).toEqual({
      inputTokens: 50,
      cacheReadInputTokens: 1_000,
      cacheCreationInputTokens: 150,
      outputTokens: 80,
    });
    expect(usageFromLangChain({ input_tokens: 10 })).toEqual({ inputTokens: 10 });
    expect(usageFromLangChain(undefined)).toBeUndefined();
    expect(usageFromLangChain({ input_tokens: Number.NaN, output_tokens: 3 })).toBeUndefined();
  });
});
