import type { ModelMessage } from "ai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { compactModelMessages, fromModelMessages } from "../../src/ai-sdk/index.js";
import {
  appendChatCompletion,
  compactChatMessages,
  fromChatMessages,
  toChatMessages,
} from "../../src/chat-completions/index.js";
import { AgentSession, estimateTokens } from "../../src/index.js";
import { fromResponsesInput } from "../../src/openai/index.js";

// A model stopped by max_tokens in the middle of a call writes `arguments` that are not JSON.
// The adapters keep that text and send it back byte for byte; the input stands for `{}`. The
// estimate counted the input alone (a 100k-character call counted as 50 tokens), so a request
// three times the window went out uncompacted.

const cut = JSON.stringify({ path: "big.txt", content: "x".repeat(100_000) }).slice(0, -5);
const tokensOfText = Math.ceil(cut.length / 4);

describe("the arguments text a tool call is sent with", () => {
  it("counts in the estimate, in Chat Completions messages", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: "Write big.txt." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "write", arguments: cut } }],
      },
      { role: "tool", tool_call_id: "c1", content: "error: the arguments were not JSON" },
      { role: "user", content: "Try again, in parts." },
    ];
    expect(estimateTokens(fromChatMessages(messages))).toBeGreaterThan(tokensOfText);
    const out = await compactChatMessages(messages, { contextLimit: 8000 });
    expect(out.compacted).toBe(true);
    expect(JSON.stringify(out.messages).length / 4).toBeLessThan(8000);
  });

  it("counts in the estimate, in a Responses input", () => {
    const input: ResponseInputItem[] = [
      { role: "user", content: "Write big.txt." },
      { type: "function_call", call_id: "c1", name: "write", arguments: cut },
      { type: "function_call_output", call_id: "c1", output: "error: not JSON" },
    ];
    expect(estimateTokens(fromResponsesInput(input))).toBeGreaterThan(tokensOfText);
  });

  it("is kept as text when JSON.parse reads a number as Infinity, as malformed text is", () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c", type: "function", function: { name: "f", arguments: '{"b":1e400}' } },
        ],
      },
      { role: "tool", tool_call_id: "c", content: "r" },
    ];
    const ours = fromChatMessages(messages);
    expect(ours[1]!.content[0]).toMatchObject({ type: "tool_use", input: {} });
    expect(toChatMessages(ours)).toEqual(messages);
    const session = new AgentSession({ contextLimit: 10_000 });
    session.addUserText("q");
    const { message } = appendChatCompletion(session, {
      choices: [{ message: messages[1] }],
    } as never);
    expect(message?.content[0]).toMatchObject({ type: "tool_use", input: {} });
  });

  it("counts in the estimate when the AI SDK's input is a failed parse's raw text", async () => {
    // What convertToModelMessages makes of a tool part whose input did not parse.
    const messages = [
      { role: "user", content: "Write big.txt." },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "write", input: cut }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "write",
            output: { type: "error-text", value: "the input was not JSON" },
          },
        ],
      },
      { role: "user", content: "Try again, in parts." },
    ] as ModelMessage[];
    expect(estimateTokens(fromModelMessages(messages))).toBeGreaterThan(tokensOfText);
    const out = await compactModelMessages(messages, { contextLimit: 8000 });
    expect(out.compacted).toBe(true);
    expect(JSON.stringify(out.messages).length / 4).toBeLessThan(8000);
  });
});
