import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../examples/anthropic-agent.js";
import { offlineClaude } from "../../examples/support/offline-claude.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import { MessagesApiServer } from "../support/messages-api-server.js";

let server: MessagesApiServer;

beforeEach(async () => {
  server = await MessagesApiServer.start({ onMessages: offlineClaude() });
});

afterEach(async () => {
  await server.close();
});

describe("examples/anthropic-agent.ts", () => {
  it("runs offline, crosses the threshold, and compacts both ways", async () => {
    const lines: string[] = [];
    const client = new Anthropic({
      baseURL: server.url,
      apiKey: "offline-stand-in",
      maxRetries: 0,
    });
    const report = await runAgent({
      client,
      model: "claude-haiku-4-5",
      log: (line) => lines.push(line),
    });
    expect(report.compactions.threshold).toBeGreaterThanOrEqual(1);
    expect(report.compactions.llm).toBeGreaterThanOrEqual(1);
    expect(report.compactions.failed).toBe(0);
    expect(report.toolCalls).toBe(6);
    expect(lines.some((line) => line.includes("⇣ compaction (llm)"))).toBe(true);
    for (const request of server.requestsTo("messages")) {
      expect(requestProblems((request.body as { messages: unknown }).messages)).toEqual([]);
    }
    expect(lines.at(-1)).toMatch(/never modify files under vendor\//);
  });
});
