import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { Content } from "@google/genai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { chatMessagesProblem } from "../../examples/support/chat-completions-rules.js";
import { geminiContentsProblem } from "../../examples/support/gemini-rules.js";
import { responsesInputProblem } from "../../test/support/openai-responses-server.js";
import { compactAnthropicMessages } from "../anthropic/compact-messages.js";
import { compactChatMessages } from "../chat-completions/compact-messages.js";
import { compactGeminiContents } from "../gemini/compact-contents.js";
import { compactResponsesInput } from "../openai/compact-input.js";
import { requestProblems } from "../testing/anthropic-rules/request.js";

/**
 * Review 52c's finding 10: a tool result no call waits for (its call not in the history, or
 * answered already) went through the stateless paths as it came, and the API refused the
 * request. It is told as the user's text where it came; nothing of it is lost.
 */

const use = (id: string) => ({ type: "tool_use" as const, id, name: "read", input: {} });
const result = (id: string, content: string) => ({
  type: "tool_result" as const,
  tool_use_id: id,
  content,
});

describe("tool results no call waits for, through the stateless paths", () => {
  it("compactAnthropicMessages tells a result without its call as text", async () => {
    const input: MessageParam[] = [
      {
        role: "user",
        content: [result("toolu_gone", "from an earlier run"), { type: "text", text: "go" }],
      },
      { role: "assistant", content: [use("toolu_1")] },
      { role: "user", content: [result("toolu_1", "first")] },
      { role: "assistant", content: "done" },
      { role: "user", content: "next" },
    ];
    const { messages, compacted } = await compactAnthropicMessages(input, {
      contextLimit: 100_000,
    });
    expect(compacted).toBe(true);
    expect(requestProblems(messages)).toEqual([]);
    const sent = JSON.stringify(messages);
    expect(sent).toContain(
      "[The result of a tool call not in this conversation: toolu_gone]\\nfrom an earlier run",
    );
    expect(sent).toContain('"tool_use_id":"toolu_1","content":"first"');
  });

  it("compactResponsesInput: an output without its call, and a reused call_id", async () => {
    const call = (id: string) =>
      ({ type: "function_call", call_id: id, name: "read", arguments: "{}" }) as const;
    const output = (id: string, text: string) =>
      ({ type: "function_call_output", call_id: id, output: text }) as const;
    const input = [
      { role: "user", content: "go" },
      output("call_gone", "from an earlier run"),
      call("c1"),
      output("c1", "first"),
      { role: "user", content: "and again" },
      call("c1"),
      output("c1", "second call"),
    ] as ResponseInputItem[];
    const { messages } = await compactResponsesInput(input, { contextLimit: 100_000 });
    const issued = { encrypted: new Map(), requiresReasoning: new Map() };
    expect(responsesInputProblem(messages, issued)).toBeUndefined();
    const sent = JSON.stringify(messages);
    expect(sent).toContain("from an earlier run");
    expect(sent).toContain('"call_id":"c1_2"');
  });
});

describe("a result answering no call of the message before it (review 54a #3)", () => {
  const chatCall = (id: string) =>
    ({ id, type: "function", function: { name: "ls", arguments: "{}" } }) as const;
  const chatRules = (messages: unknown) =>
    chatMessagesProblem(messages, { reasoning: "ignored", issuedReasoning: new Map() })?.message;
  const geminiRules = (contents: unknown) =>
    geminiContentsProblem(contents, { model: "gemini-2.5-flash", issued: new Map() });

  it.each([
    ["at the end", []],
    [
      "with more after it",
      [
        { role: "assistant", content: "done" },
        { role: "user", content: "next" },
      ],
    ],
  ])(
    "compactChatMessages: a tool message of another id, %s, is told and its call closed",
    async (_, after) => {
      const input = [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [chatCall("c1")] },
        { role: "tool", tool_call_id: "zz", content: "x" },
        ...after,
      ] as ChatCompletionMessageParam[];
      expect(chatRules(input)).toBeDefined();
      const { messages } = await compactChatMessages(input, { contextLimit: 100_000 });
      expect(chatRules(messages)).toBeUndefined();
      expect(JSON.stringify(messages)).toContain(
        "[The result of a tool call not in this conversation: zz]\\nx",
      );
    },
  );

  it("compactGeminiContents: a function response of another id is told and its call closed", async () => {
    const input: Content[] = [
      { role: "user", parts: [{ text: "hi" }] },
      { role: "model", parts: [{ functionCall: { id: "a", name: "f", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { id: "b", name: "f", response: { output: "x" } } }],
      },
    ];
    expect(geminiRules(input)).toBeDefined();
    const { messages } = await compactGeminiContents(input, { contextLimit: 100_000 });
    expect(geminiRules(messages)).toBeUndefined();
    expect(JSON.stringify(messages)).toContain(
      "[The result of a tool call not in this conversation: b]",
    );
  });

  it("compactAnthropicMessages: a result of another id is told and its call closed", async () => {
    const input: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("toolu_1")] },
      { role: "user", content: [result("toolu_other", "x")] },
    ];
    const { messages } = await compactAnthropicMessages(input, { contextLimit: 100_000 });
    expect(requestProblems(messages)).toEqual([]);
  });
});

describe("a result of a call answered already, given after the model went on (review 54d #5)", () => {
  it("compactAnthropicMessages tells it as text, and closes the call it left waiting", async () => {
    const input: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("toolu_0")] },
      { role: "user", content: [result("toolu_0", "first")] },
      { role: "assistant", content: [use("toolu_1")] },
      { role: "user", content: [result("toolu_0", "again")] },
    ];
    expect(requestProblems(input)).not.toEqual([]);
    const { messages } = await compactAnthropicMessages(input, { contextLimit: 100_000 });
    expect(requestProblems(messages)).toEqual([]);
    expect(JSON.stringify(messages)).toContain("again");
  });

  it("a provider's reused id still answers its new call", async () => {
    const input: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("call_0")] },
      { role: "user", content: [result("call_0", "first")] },
      { role: "assistant", content: [use("call_0")] },
      { role: "user", content: [result("call_0", "second")] },
    ];
    const { messages } = await compactAnthropicMessages(input, { contextLimit: 100_000 });
    expect(requestProblems(messages)).toEqual([]);
    expect(JSON.stringify(messages)).not.toContain("not in this conversation");
  });
});

describe("a second result of one call, in the same run of results", () => {
  const chatCall = { id: "c1", type: "function", function: { name: "ls", arguments: "{}" } };
  it("compactChatMessages tells it as text: the API refuses a duplicate tool message", async () => {
    const input = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [chatCall] },
      { role: "tool", tool_call_id: "c1", content: "one" },
      { role: "tool", tool_call_id: "c1", content: "two" },
    ] as ChatCompletionMessageParam[];
    const rules = (messages: unknown) =>
      chatMessagesProblem(messages, { reasoning: "ignored", issuedReasoning: new Map() })?.message;
    expect(rules(input)).toMatch(/duplicate tool message/);
    const { messages } = await compactChatMessages(input, { contextLimit: 100_000 });
    expect(rules(messages)).toBeUndefined();
    expect(messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "one" },
      { role: "user", content: "[Another result of a tool call answered already: c1]\ntwo" },
    ]);
  });

  it("compactResponsesInput tells it as text: the API refuses a duplicate output", async () => {
    const input = [
      { role: "user", content: "go" },
      { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "one" },
      { type: "function_call_output", call_id: "c1", output: "two" },
    ] as ResponseInputItem[];
    const issued = { encrypted: new Map(), requiresReasoning: new Map() };
    expect(responsesInputProblem(input, issued)).toBeDefined();
    const { messages } = await compactResponsesInput(input, { contextLimit: 100_000 });
    expect(responsesInputProblem(messages, issued)).toBeUndefined();
    expect(JSON.stringify(messages)).toContain("answered already: c1]\\ntwo");
  });

  it("compactAnthropicMessages tells it as text after the results", async () => {
    const input: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("toolu_1")] },
      { role: "user", content: [result("toolu_1", "one"), result("toolu_1", "two")] },
    ];
    const { messages } = await compactAnthropicMessages(input, { contextLimit: 100_000 });
    expect(messages[2]!.content).toEqual([
      result("toolu_1", "one"),
      { type: "text", text: "[Another result of a tool call answered already: toolu_1]\ntwo" },
    ]);
  });

  it("as many results as calls, one call answered twice and one never: the other is closed", async () => {
    const input: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("toolu_1"), use("toolu_2")] },
      { role: "user", content: [result("toolu_1", "one"), result("toolu_1", "two")] },
      { role: "assistant", content: "done" },
    ];
    expect(requestProblems(input)).not.toEqual([]);
    const { messages } = await compactAnthropicMessages(input, { contextLimit: 100_000 });
    expect(requestProblems(messages)).toEqual([]);
    expect(JSON.stringify(messages)).toContain("answered already: toolu_1]\\ntwo");
  });
});
