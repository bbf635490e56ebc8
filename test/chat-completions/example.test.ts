import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../examples/chat-completions-agent.js";
import { offlineChatModel } from "../../examples/support/offline-chat-model.js";
import { ChatCompletionsServer } from "../support/chat-completions-server.js";

let server: ChatCompletionsServer;

beforeEach(async () => {
  server = await ChatCompletionsServer.start(offlineChatModel(), {
    reasoning: "required-for-tool-calls",
  });
});

afterEach(async () => {
  await server.close();
});

describe("examples/chat-completions-agent.ts", () => {
  it("runs offline, compacts both ways, and no request is refused", async () => {
    const lines: string[] = [];
    const client = new OpenAI({ baseURL: server.url, apiKey: "offline-stand-in", maxRetries: 0 });
    const report = await runAgent({
      client,
      model: "deepseek-v4-pro",
      log: (line) => lines.push(line),
    });
    expect(report.compactions.threshold).toBeGreaterThanOrEqual(1);
    expect(report.compactions.llm).toBeGreaterThanOrEqual(1);
    expect(report.compactions.failed).toBe(0);
    expect(report.toolCalls).toBe(6);
    expect(server.refusals).toEqual([]);
    expect(lines.some((line) => line.includes("⇣ compaction (llm)"))).toBe(true);
    // The rule the user gave in the first request outlived the summary.
    expect(report.answer).toMatch(/never modify files under vendor\//);
  });

  it("is refused by a Groq-like host unless it drops the reasoning", async () => {
    await server.close();
    server = await ChatCompletionsServer.start(offlineChatModel(), { reasoning: "rejected" });
    const client = new OpenAI({ baseURL: server.url, apiKey: "offline-stand-in", maxRetries: 0 });
    const log = () => {};
    await expect(runAgent({ client, model: "qwen/qwen3-32b", log })).rejects.toThrow(
      "property 'reasoning_content' is unsupported",
    );
    const report = await runAgent({ client, model: "qwen/qwen3-32b", log, reasoning: "drop" });
    expect(report.toolCalls).toBe(6);
  });
});
