import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AnthropicLlmClient } from "../../src/anthropic/index.js";
import { AgentSession, type CompactionEvent, LLMCompactor } from "../../src/index.js";
import { ConversationBuilder } from "../../src/testing/index.js";
import { MessagesApiServer } from "../support/messages-api-server.js";

/** 429/5xx from the loopback Messages API through the real SDK: history kept, reported once, breaker. */

let server: MessagesApiServer;
beforeEach(async () => {
  server = await MessagesApiServer.start();
});
afterEach(async () => {
  await server.close();
});

function session(events: CompactionEvent[]): AgentSession {
  const client = new Anthropic({ baseURL: server.url, apiKey: "sk-test", maxRetries: 1 });
  const result = new AgentSession({
    contextLimit: 2000,
    sessionId: "api-faults",
    compactor: false,
    llmCompactor: new LLMCompactor(new AnthropicLlmClient({ client, model: "claude-haiku-4-5" }), {
      keepRecentTurns: 1,
    }),
    onEvent: (event) => events.push(event),
  });
  const builder = new ConversationBuilder({ sessionId: "api-faults" });
  for (let turn = 1; turn <= 4; turn += 1)
    builder
      .user(`request ${turn}`)
      .toolCall({ name: "read", result: "data ".repeat(80) })
      .assistant(`answer ${turn} `.repeat(30));
  result.append(...builder.build());
  result.recordUsage({ inputTokens: 1900 });
  return result;
}

const history = (value: AgentSession) => JSON.stringify(value.messages);

describe("429 and 5xx from the Messages API", () => {
  for (const status of [429, 500, 503, 529]) {
    it(`${status}: history unchanged, one compaction_failed, llm_error with the SDK error as cause`, async () => {
      server.setDefault("messages", { type: "error", status });
      const events: CompactionEvent[] = [];
      const value = session(events);
      const before = history(value);
      const report = await value.maybeCompact();
      expect(report.error?.code).toBe("llm_error");
      expect((report.error?.cause as { status?: number } | undefined)?.status).toBe(status);
      expect(history(value)).toBe(before);
      expect(events.filter((event) => event.type === "compaction_failed")).toHaveLength(1);
    });
  }

  it("after 3 failing maybeCompact calls, no further request reaches the API", async () => {
    server.setDefault("messages", { type: "error", status: 529 });
    const events: CompactionEvent[] = [];
    const value = session(events);
    for (let attempt = 0; attempt < 3; attempt += 1) await value.maybeCompact();
    const requests = server.requestsTo("messages").length;
    for (let attempt = 0; attempt < 3; attempt += 1) await value.maybeCompact();
    expect(server.requestsTo("messages")).toHaveLength(requests);
    expect(events.filter((event) => event.type === "compaction_skipped")).toHaveLength(3);
  });
});
