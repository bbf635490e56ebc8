import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { compactChatMessages, fromChatMessages } from "../../src/chat-completions/index.js";
import { estimateTokens } from "../../src/index.js";
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
});
