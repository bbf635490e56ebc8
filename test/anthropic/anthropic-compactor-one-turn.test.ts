import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicCompactor, COMPACTION_BETA } from "../../src/anthropic/anthropic-compactor.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../../src/anthropic/index.js";
import { isCompactionBlock } from "../../src/core/conversation-structure.js";
import { AgentSession, type CompactionEvent, validateConversation } from "../../src/index.js";
import { answerReply, SYSTEM, TOOLS, toolLoopScript } from "../support/coding-agent.js";
import { MessagesApiServer, roughTokens } from "../support/messages-api-server.js";

/**
 * One request and 150 steps of tool calls (one long turn), as a coding agent's task runs:
 * AnthropicCompactor folds older steps of the turn into the API's block and keeps the user's
 * request verbatim right after it. Through the real SDK against the loopback Messages API
 * (thinking in every reply, the preserved-thinking check enforced, a 24k window).
 */

const WINDOW = 24_000;
const REQUEST = "Read the source tree and fix the failing test. Never edit generated files.";

let server: MessagesApiServer;
beforeAll(async () => {
  server = await MessagesApiServer.start({
    onMessages: toolLoopScript({ endsTurn: () => false, path: (n) => `f${n}` }),
    thinkByDefault: true,
    preservedThinking: "enforced",
    contextWindow: WINDOW,
  });
});
afterAll(() => server.close());

describe("AnthropicCompactor in one long turn", () => {
  it("folds older steps of the turn, the request verbatim after the block, never refused", async () => {
    const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: WINDOW,
      compactor: false,
      llmCompactor: new AnthropicCompactor({
        client,
        model: "claude-fable-5-1",
        system: SYSTEM,
        tools: TOOLS,
        params: { thinking: { type: "adaptive" } },
      }),
      onEvent: (event) => events.push(event),
    });
    session.addUserText(REQUEST);
    const rejected: string[] = [];
    let largest = 0;
    for (let step = 1; step <= 150; step += 1) {
      const report = await session.maybeCompact();
      if (report.compacted && events.at(-1)?.type === "compaction_end") {
        const [block, request] = session.messages;
        expect(isCompactionBlock(block!.content[0])).toBe(true);
        expect(request!.content).toEqual([{ type: "text", text: REQUEST }]);
      }
      const messages = toAnthropicMessages(session.messages);
      // The user's request goes with every request, word for word.
      expect(JSON.stringify(messages)).toContain(REQUEST);
      largest = Math.max(largest, roughTokens({ system: SYSTEM, tools: TOOLS, messages }));
      try {
        const response = await client.beta.messages.create({
          model: "claude-fable-5-1",
          max_tokens: 1024,
          system: SYSTEM,
          tools: TOOLS,
          thinking: { type: "adaptive" },
          betas: [COMPACTION_BETA],
          messages,
        });
        appendAnthropicResponse(session, response);
        answerReply(session, response, step);
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error));
        break;
      }
    }
    expect(rejected).toEqual([]);
    expect(largest).toBeLessThanOrEqual(WINDOW);
    expect(validateConversation(session.messages)).toEqual([]);
    const ends = events.filter((event) => event.type === "compaction_end");
    expect(ends.length).toBeGreaterThan(3);
    for (const end of ends) expect(end.strategy).toBe("anthropic");
    // The folds kept the window: the last resort never had to drop the turn's steps.
    expect(events.some((event) => event.type === "context_trimmed")).toBe(false);
  });
});
