import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicCompactor, COMPACTION_BETA } from "../../src/anthropic/anthropic-compactor.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../../src/anthropic/index.js";
import { isCompactionBlock } from "../../src/core/conversation-structure.js";
import {
  AgentSession,
  type CompactionEvent,
  type Message,
  validateConversation,
} from "../../src/index.js";
import { answerReply, SYSTEM, TOOLS, toolLoopScript } from "../support/coding-agent.js";
import { MessagesApiServer, roughTokens } from "../support/messages-api-server.js";

/**
 * The README's agent loop (maybeCompact, the request built from `toAnthropicMessages(session
 * .messages)`, appendAnthropicResponse, addToolResults), with the compaction beta on every
 * request, through the real SDK against the loopback Messages API: thinking in every reply, the
 * preserved-thinking check enforced, a 24k window, and AnthropicCompactor as the session's
 * `llmCompactor`. 150 requests: none refused, every one under the window, and after each
 * compaction the kept turns' thinking is still there (not stripped) and accepted.
 */

const WINDOW = 24_000;

/** The model: runs of tool calls, an answer every ninth request that follows tool results. */
const agentScript = () =>
  toolLoopScript({ endsTurn: (_messages, request) => request % 9 === 0, path: (n) => `f${n}` });

let server: MessagesApiServer;
beforeAll(async () => {
  server = await MessagesApiServer.start({
    onMessages: agentScript(),
    thinkByDefault: true,
    preservedThinking: "enforced",
    contextWindow: WINDOW,
  });
});
afterAll(() => server.close());

const thinkingCount = (messages: readonly Message[]) =>
  messages.reduce(
    (count, message) => count + message.content.filter((block) => block.type === "thinking").length,
    0,
  );

describe("AnthropicCompactor in the README loop: 150 requests, thinking in every reply", () => {
  it.each([
    ["in the foreground", false],
    ["in the background", true],
  ] as const)(
    "%s: is never refused, stays under the window, and keeps the kept turns' thinking",
    async (_mode, background) => {
      const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
      const events: CompactionEvent[] = [];
      const session = new AgentSession({
        contextLimit: WINDOW,
        compactor: false,
        background,
        llmCompactor: new AnthropicCompactor({
          client,
          model: "claude-fable-5-1",
          system: SYSTEM,
          tools: TOOLS,
          params: { thinking: { type: "adaptive" } },
        }),
        onEvent: (event) => events.push(event),
      });
      session.addUserText(
        "Read the source tree and fix the failing test. Never edit generated files.",
      );
      const rejected: string[] = [];
      let largest = 0;
      let requests = 0;
      let compactions = 0;
      let backgrounded = 0;
      for (let step = 1; step <= 150; step += 1) {
        const report = await session.maybeCompact();
        if (report.inBackground) backgrounded += 1;
        if (report.compacted) {
          compactions += 1;
          // The block leads; what follows is the kept part, its thinking all there.
          const [first, ...kept] = session.messages;
          expect(isCompactionBlock(first!.content[0])).toBe(true);
          const replies = kept.filter((message) => message.role === "assistant");
          expect(replies.length).toBeGreaterThan(0);
          expect(thinkingCount(kept)).toBe(replies.length);
        }
        const messages = toAnthropicMessages(session.messages);
        largest = Math.max(largest, roughTokens({ system: SYSTEM, tools: TOOLS, messages }));
        let response: Anthropic.Beta.Messages.BetaMessage;
        try {
          response = await client.beta.messages.create({
            model: "claude-fable-5-1",
            max_tokens: 1024,
            system: SYSTEM,
            tools: TOOLS,
            thinking: { type: "adaptive" },
            betas: [COMPACTION_BETA],
            messages,
          });
        } catch (error) {
          rejected.push(error instanceof Error ? error.message : String(error));
          break;
        }
        requests += 1;
        appendAnthropicResponse(session, response);
        answerReply(session, response, step);
      }
      expect(rejected).toEqual([]);
      expect(requests).toBe(150);
      expect(largest).toBeLessThanOrEqual(WINDOW);
      expect(validateConversation(session.messages)).toEqual([]);
      const ends = events.filter((event) => event.type === "compaction_end");
      expect(ends.length).toBeGreaterThan(3);
      // In the background a summary can be applied by the run a later call joins.
      if (!background) expect(ends).toHaveLength(compactions);
      // In the background the agent went on while summaries were written.
      expect(backgrounded > 0).toBe(background);
      expect(compactions).toBeGreaterThan(0);
      // The compactions' cost, in the session's usage.
      expect(session.compactionUsage.inputTokens).toBeGreaterThan(0);
      for (const end of ends) {
        expect(end.strategy).toBe("anthropic");
        // Nothing stripped: the API's block keeps the kept thinking valid.
        expect(end.boundary.thinkingBlocksDropped).toBe(0);
        // The compaction's cost, from usage.iterations.
        expect(end.result.usage?.inputTokens).toBeGreaterThan(0);
        expect(end.result.usage?.outputTokens).toBeGreaterThan(0);
      }
      expect(events.some((event) => event.type === "context_trimmed")).toBe(false);
      expect(events.some((event) => event.type === "compaction_failed")).toBe(false);
    },
  );
});
