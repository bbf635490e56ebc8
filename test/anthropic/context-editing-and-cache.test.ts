import Anthropic from "@anthropic-ai/sdk";
import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessagesApiServer } from "../../examples/support/messages-api-server.js";
import { AnthropicCompactor, COMPACTION_BETA } from "../../src/anthropic/anthropic-compactor.js";
import {
  anthropicContextManagement,
  CONTEXT_MANAGEMENT_BETA,
} from "../../src/anthropic/context-management.js";
import {
  type AppendedResponse,
  appendAnthropicResponse,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import {
  AgentSession,
  type CompactionEvent,
  estimateTokens,
  type Message,
} from "../../src/index.js";
import { READ_FILE_TOOL, REMEMBER_TOOL, SYSTEM } from "../support/coding-agent.js";

/**
 * Server-side clearing and cache evidence through the real SDK against the loopback Messages
 * API: the helper's edits come back as applied edits that move the context measure while the
 * history stays append-only (its thinking valid), and with `diagnostics.previous_message_id` a
 * compaction's cost in cache misses is visible in `appendAnthropicResponse`'s result.
 */

const TOOLS: Tool[] = [READ_FILE_TOOL, REMEMBER_TOOL];

let server: MessagesApiServer;
let client: Anthropic;

beforeEach(async () => {
  let calls = 0;
  server = await MessagesApiServer.start({
    thinkByDefault: true,
    preservedThinking: "enforced",
    onMessages: () => {
      calls += 1;
      const name = calls % 5 === 0 ? "remember" : "read_file";
      return {
        type: "message",
        content: [{ type: "tool_use", id: `toolu_${calls}`, name, input: { path: `f${calls}` } }],
      };
    },
  });
  client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
});
afterEach(() => server.close());

const thinkingCount = (messages: readonly Message[]) =>
  messages.flatMap((message) => message.content.filter((block) => block.type === "thinking"))
    .length;

/** One step of a tool loop: the request, the reply appended, the tool's result added. */
async function step(session: AgentSession, extra: Record<string, unknown>, betas: string[]) {
  const response = await client.beta.messages.create({
    model: "claude-fable-5-1",
    max_tokens: 1024,
    system: SYSTEM,
    tools: TOOLS,
    thinking: { type: "adaptive" },
    messages: toAnthropicMessages(session.messages),
    betas,
    ...extra,
  } as Anthropic.Beta.Messages.MessageCreateParamsNonStreaming);
  const appended = appendAnthropicResponse(session, response);
  for (const block of response.content) {
    if (block.type !== "tool_use") continue;
    session.addToolResults([
      {
        type: "tool_result",
        tool_use_id: block.id,
        content: `contents of ${block.id}\n`.repeat(50),
      },
    ]);
  }
  return { response, appended };
}

describe("server-side clearing (anthropicContextManagement)", () => {
  it("comes back as applied edits that move the context measure, the history append-only", async () => {
    const WINDOW = 20_000;
    const edited: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: WINDOW,
      compactor: false,
      onEvent: (event) => {
        if (event.type === "context_edits_applied") edited.push(event);
      },
    });
    session.addUserText("Read every file.");
    const contextManagement = anthropicContextManagement({
      contextLimit: WINDOW,
      threshold: 0.2,
      keepRecentToolUses: 3,
      excludeTools: ["remember"],
      clearToolInputs: true,
    });
    const history: Message[][] = [];
    let last: AppendedResponse | undefined;
    const cleared: number[] = [];
    for (let index = 0; index < 14; index += 1) {
      history.push([...session.messages]);
      ({ appended: last } = await step(session, { context_management: contextManagement }, [
        CONTEXT_MANAGEMENT_BETA,
      ]));
      const edit = last.appliedEdits?.[0];
      if (edit !== undefined) cleared.push(edit.clearedToolUses ?? 0);
    }
    // Below the trigger nothing was applied; past it, old results went (never `remember`'s).
    expect(cleared.length).toBeGreaterThan(0);
    expect(cleared.length).toBeLessThan(14);
    expect(Math.max(...cleared)).toBeGreaterThan(3);
    expect(last!.appliedEdits![0]).toMatchObject({
      type: "clear_tool_uses_20250919",
      clearedInputTokens: expect.any(Number),
    });
    // The measure follows what the model read, not the whole history.
    expect(session.contextUsed).toBeLessThan(estimateTokens(session.messages));
    // Each applied edit reached the session's observers.
    expect(edited).toHaveLength(cleared.length);
    expect(edited[0]).toMatchObject({ clearedInputTokens: expect.any(Number) });
    // Append-only: every earlier message is still the same object, its thinking all there.
    for (const earlier of history) {
      expect(earlier.every((message, index) => session.messages[index] === message)).toBe(true);
    }
    const replies = session.messages.filter((message) => message.role === "assistant").length;
    expect(thinkingCount(session.messages)).toBe(replies);
    const sent = server.requestsTo("messages").at(-1)!;
    expect(JSON.stringify(sent.body)).not.toContain("cleared by context management");
  });
});

describe("cache evidence (diagnostics.previous_message_id)", () => {
  it("reports no miss while the history is appended to, and the compaction's miss after it", async () => {
    const session = new AgentSession({
      contextLimit: 100_000,
      compactor: false,
      archive: false,
      llmCompactor: new AnthropicCompactor({
        client,
        model: "claude-fable-5-1",
        system: SYSTEM,
        tools: TOOLS,
        keepRecentTurns: 1,
      }),
    });
    session.addUserText("Read every file.");
    let previous: string | null = null;
    const reasons: (AppendedResponse["cacheMissReason"] | "compacted")[] = [];
    for (let index = 0; index < 8; index += 1) {
      if (index === 5) {
        await session.forceCompact();
        reasons.push("compacted");
      }
      const { response, appended } = await step(
        session,
        { diagnostics: { previous_message_id: previous } },
        [COMPACTION_BETA],
      );
      previous = response.id;
      reasons.push(appended.cacheMissReason);
    }
    expect(reasons.slice(0, 5)).toEqual([null, null, null, null, null]);
    expect(reasons[5]).toBe("compacted");
    expect(reasons[6]).toEqual({
      type: "messages_changed",
      cacheMissedInputTokens: expect.any(Number),
    });
    expect(
      (reasons[6] as { cacheMissedInputTokens: number }).cacheMissedInputTokens,
    ).toBeGreaterThan(100);
    expect(reasons.slice(7)).toEqual([null, null]);
  });
});
