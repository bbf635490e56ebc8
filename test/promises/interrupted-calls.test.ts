import type { BaseMessage } from "@langchain/core/messages";
import { generateText, type ModelMessage, tool } from "ai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  compactionPrepareStep,
  compactModelMessages,
  toModelMessages,
} from "../../src/ai-sdk/index.js";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { compactChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import { INTERRUPTED_NOTICE } from "../../src/core/interrupted-calls.js";
import { LATE_RESULT_NOTICE } from "../../src/core/late-results.js";
import {
  type ContentBlock,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
} from "../../src/core/message.js";
import { compactGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../../src/langchain/index.js";
import { compactResponsesInput, toResponsesInput } from "../../src/openai/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import { ConversationBuilder } from "../../src/testing/index.js";
import { answeringModel } from "../support/answering-model.js";
import { chatMessagesProblem } from "../support/chat-completions-server.js";
import { geminiContentsProblem } from "../support/gemini-api-server.js";
import { responsesInputProblem } from "../support/openai-responses-server.js";

// Every provider's one-call helper closes the tool calls a history went on without (a run
// stopped between the model's calls and their results, then the user wrote again), as the
// session closes them: each provider refuses a call left unanswered. Checked by each API's
// rules, as their loopback stand-ins enforce them; compacted or not.

interface Helper {
  compact: (
    messages: readonly Message[],
    options: CompactMessagesOptions,
  ) => Promise<{ messages: unknown[]; compacted: boolean }>;
  /** The API's first complaint about the messages, `undefined` when it takes them. */
  problem: (messages: unknown[]) => string | undefined;
}

const HELPERS: Record<string, Helper> = {
  compactAnthropicMessages: {
    compact: (messages, options) =>
      compactAnthropicMessages(toAnthropicMessages(messages), options),
    problem: (messages) => requestProblems(messages)[0],
  },
  compactResponsesInput: {
    compact: (messages, options) => compactResponsesInput(toResponsesInput(messages), options),
    problem: (input) =>
      responsesInputProblem(input, { encrypted: new Map(), requiresReasoning: new Map() })?.message,
  },
  compactGeminiContents: {
    compact: (messages, options) => compactGeminiContents(toGeminiContents(messages), options),
    problem: (contents) =>
      geminiContentsProblem(contents, { model: "gemini-2.5-flash", issued: new Map() }),
  },
  compactChatMessages: {
    compact: (messages, options) => compactChatMessages(toChatMessages(messages), options),
    problem: (messages) =>
      chatMessagesProblem(messages as ChatCompletionMessageParam[], {
        reasoning: "ignored",
        issuedReasoning: new Map(),
      })?.message,
  },
  compactModelMessages: {
    compact: (messages, options) => compactModelMessages(toModelMessages(messages), options),
    problem: (messages) => modelMessagesProblem(messages as ModelMessage[]),
  },
  compactLangChainMessages: {
    compact: (messages, options) =>
      compactLangChainMessages(toLangChainMessages(messages), options),
    problem: (messages) => langChainProblem(messages as BaseMessage[]),
  },
};

/** A call of the AI SDK's left without a result in the tool messages right after it. */
function modelMessagesProblem(messages: readonly ModelMessage[]): string | undefined {
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    const answered = new Set<string>();
    for (let next = index + 1; messages[next]?.role === "tool"; next += 1)
      for (const part of messages[next]!.content as { toolCallId?: string }[])
        if (part.toolCallId !== undefined) answered.add(part.toolCallId);
    for (const part of message.content)
      if (part.type === "tool-call" && !answered.has(part.toolCallId))
        return `Tool result is missing for tool call ${part.toolCallId}.`;
  }
  return undefined;
}

/** A LangChain AI message's call left without a tool message right after it. */
function langChainProblem(messages: readonly BaseMessage[]): string | undefined {
  for (let index = 0; index < messages.length; index += 1) {
    const calls = (messages[index] as { tool_calls?: { id?: string }[] }).tool_calls ?? [];
    const answered = new Set<string>();
    for (let next = index + 1; messages[next]?.type === "tool"; next += 1)
      answered.add((messages[next] as unknown as { tool_call_id: string }).tool_call_id);
    for (const call of calls)
      if (call.id !== undefined && !answered.has(call.id)) return `call ${call.id} unanswered`;
  }
  return undefined;
}

/** A system message's block, as the formats with system messages between others carry it. */
const system: ContentBlock = {
  type: "opaque",
  block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "Budget: 3" } },
};

function use(id: string, path: string): ContentBlock {
  return { type: "tool_use", id, name: "read_file", input: { path } };
}

function result(id: string): ContentBlock {
  return {
    type: "tool_result",
    toolUseId: id,
    content: `// ${id}\n${"x\n".repeat(400)}`,
    isError: false,
  };
}

/**
 * `reads` whole read exchanges, then a stopped one: calls `a` and `b`, only `a` answered when
 * `partial`; then the user wrote again and the conversation went on.
 */
function interrupted(reads: number, partial: boolean): Message[] {
  const builder = new ConversationBuilder().user("Fix the build.");
  for (let read = 0; read < reads; read += 1)
    builder.toolCall({
      name: "read_file",
      input: { path: `f${read}.ts` },
      result: "x\n".repeat(400),
    });
  builder.assistant([
    { type: "text", text: "Reading both." },
    use("call-a", "a.ts"),
    use("call-b", "b.ts"),
  ]);
  if (partial)
    builder.user([result("call-a"), { type: "text", text: "Stop; check the CI instead." }]);
  else builder.user("Stop; check the CI instead.");
  builder.assistant("The CI is green.").user("Good, go on.");
  return builder.build();
}

/** The error results the messages (in any format) hold, told by the notice's text. */
function notices(messages: unknown[]): number {
  return JSON.stringify(messages).split(INTERRUPTED_NOTICE).length - 1;
}

describe.each(Object.entries(HELPERS))("%s", (_name, helper) => {
  it.each([
    ["nothing answered", false, 2],
    ["one call of two answered", true, 1],
  ])(
    "closes the calls the user went on without (%s), compacted or not",
    async (_case, partial, closed) => {
      const messages = interrupted(6, partial);
      for (const contextLimit of [1_000_000, 6_000]) {
        const out = await helper.compact(messages, { contextLimit, trimOnOverflow: false });
        expect(helper.problem(out.messages)).toBeUndefined();
        expect(out.compacted).toBe(true);
        expect(notices(out.messages)).toBe(closed);
        // The same history gives the same request again (the prompt cache reads it).
        const again = await helper.compact(messages, { contextLimit, trimOnOverflow: false });
        expect(JSON.stringify(again.messages)).toBe(JSON.stringify(out.messages));
      }
    },
  );

  it("takes results given one message each as answering their calls (nothing to close)", async () => {
    const messages = new ConversationBuilder()
      .user("Fix the build.")
      .assistant([use("call-a", "a.ts"), use("call-b", "b.ts")])
      .user([result("call-a")])
      .user([result("call-b")])
      .assistant("Both read.")
      .user("Go on.")
      .build();
    const out = await helper.compact(messages, { contextLimit: 1_000_000 });
    expect(out.compacted).toBe(false);
    expect(helper.problem(out.messages)).toBeUndefined();
  });

  it("closes calls before a system message, which stays (pinned, sent as it came)", async () => {
    const messages = new ConversationBuilder()
      .user("Fix the build.")
      .assistant([use("call-a", "a.ts")])
      .user([system])
      .user("And?")
      .build();
    const out = await helper.compact(messages, { contextLimit: 1_000_000 });
    expect(helper.problem(out.messages)).toBeUndefined();
    expect(notices(out.messages)).toBe(1);
    expect(JSON.stringify(out.messages)).toContain("Budget: 3");
  });

  it("moves a result given after a system message up to its calls (a harness's reminder between)", async () => {
    const messages = new ConversationBuilder()
      .user("Fix the build.")
      .assistant([use("call-a", "a.ts"), use("call-b", "b.ts")])
      .user([result("call-a")])
      .user([system])
      .user([result("call-b")])
      .user("And?")
      .build();
    const out = await helper.compact(messages, { contextLimit: 1_000_000 });
    expect(helper.problem(out.messages)).toBeUndefined();
    const sent = JSON.stringify(out.messages);
    expect(notices(out.messages)).toBe(0);
    // Each result once, and the system message (Gemini's contents hold it as the user's text).
    for (const id of ["call-a", "call-b"]) expect(sent.split(`// ${id}`)).toHaveLength(2);
    expect(sent).toContain("Budget: 3");
  });

  it("tells a result given only after the model went on as text, its call closed", async () => {
    const messages = new ConversationBuilder()
      .user("Fix the build.")
      .assistant([use("call-a", "a.ts")])
      .user("Hurry.")
      .assistant("Waiting for the read.")
      .user([result("call-a")])
      .build();
    const out = await helper.compact(messages, { contextLimit: 1_000_000 });
    expect(helper.problem(out.messages)).toBeUndefined();
    const sent = JSON.stringify(out.messages);
    expect(sent.split("// call-a")).toHaveLength(2);
    // The Responses API takes a call's output anywhere after it: left where it is.
    if (_name === "compactResponsesInput") expect(out.compacted).toBe(false);
    else {
      expect(notices(out.messages)).toBe(1);
      expect(sent).toContain(`${LATE_RESULT_NOTICE} call-a]`);
      expect(sent.indexOf(LATE_RESULT_NOTICE)).toBeGreaterThan(
        sent.indexOf("Waiting for the read."),
      );
    }
  });

  it("leaves calls waiting at the end open, and a history without any unchanged", async () => {
    const builder = new ConversationBuilder().user("Fix the build.");
    builder.assistant([use("call-a", "a.ts")]);
    const waiting = await helper.compact(builder.build(), { contextLimit: 1_000_000 });
    expect(waiting.compacted).toBe(false);
    const whole = await helper.compact(interrupted(0, false).slice(0, 1), {
      contextLimit: 1_000_000,
    });
    expect(whole.compacted).toBe(false);
  });
});

describe("the AI SDK's tool approvals", () => {
  /** A call to `deploy` asked approval of, `between` its request and the approval. */
  const approved = (...between: ModelMessage[]): ModelMessage[] => [
    { role: "user", content: "Deploy it." },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "X", toolName: "deploy", input: {} },
        { type: "tool-approval-request", approvalId: "ap1", toolCallId: "X" },
      ],
    },
    ...between,
    {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: "ap1", approved: true }],
    },
  ];

  it("leave an approved call waiting for its result: generateText runs the tool next", async () => {
    const messages = approved();
    const out = await compactModelMessages(messages, { contextLimit: 1_000_000 });
    expect(out.compacted).toBe(false);
    expect(out.messages).toBe(messages);
  });

  it("leave it waiting after a harness's system message too: the tool runs once, its result alone", async () => {
    const messages = approved({ role: "system", content: "Deploys are logged." });
    const out = await compactModelMessages(messages, { contextLimit: 1_000_000 });
    expect(out.messages).toBe(messages);
    let runs = 0;
    const model = answeringModel("Deployed.");
    const deploy = tool({
      inputSchema: z.object({}),
      needsApproval: true,
      execute: async () => {
        runs += 1;
        return "done";
      },
    });
    await generateText({
      model,
      tools: { deploy },
      messages: out.messages,
      allowSystemInMessages: true,
      prepareStep: compactionPrepareStep({ contextLimit: 1_000_000 }),
    });
    expect(runs).toBe(1);
    const prompt = JSON.stringify(model.doGenerateCalls[0]!.prompt);
    expect(prompt).not.toContain(INTERRUPTED_NOTICE);
    expect(prompt.match(/"type":"tool-result"/g)).toHaveLength(1);
    // An approval the conversation went on after (the SDK reads only the last message's):
    // the call is closed, as any other.
    const went = [...messages, { role: "user" as const, content: "Never mind." }];
    const closed = await compactModelMessages(went, { contextLimit: 1_000_000 });
    expect(JSON.stringify(closed.messages)).toContain(INTERRUPTED_NOTICE);
    expect(modelMessagesProblem(closed.messages)).toBeUndefined();
  });
});

describe("compactionPrepareStep across steps", () => {
  const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
  const call = (id: string) => ({
    type: "tool-call" as const,
    toolCallId: id,
    toolName: "read_file",
    input: { path: id },
  });
  const answer = (id: string) => ({
    type: "tool-result" as const,
    toolCallId: id,
    toolName: "read_file",
    output: { type: "text" as const, value: "ok" },
  });

  it("closes a call the known history left waiting, as a new loop closes it", async () => {
    const first: ModelMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [call("a"), call("b")] },
      { role: "tool", content: [answer("a")] },
    ];
    const then: ModelMessage[] = [...first, { role: "user", content: "Stop; check the CI." }];
    const prepare = compactionPrepareStep({ contextLimit: 1_000_000 });
    await prepare({ steps: [], stepNumber: 0, messages: first } as never);
    const known = await prepare({ steps: [{ usage }], stepNumber: 1, messages: then } as never);
    const fresh = await compactionPrepareStep({ contextLimit: 1_000_000 })({
      steps: [],
      stepNumber: 0,
      messages: then,
    } as never);
    for (const out of [known, fresh]) {
      const sent = (out as { messages?: ModelMessage[] }).messages ?? then;
      expect(modelMessagesProblem(sent)).toBeUndefined();
      expect(notices(sent)).toBe(1);
    }
  });
});
