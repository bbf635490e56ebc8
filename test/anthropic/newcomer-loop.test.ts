import Anthropic from "@anthropic-ai/sdk";
import type { Tool, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagesApiServer, roughTokens } from "../../examples/support/messages-api-server.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../../src/anthropic/index.js";
import {
  AgentSession,
  type CompactionEvent,
  type ToolResultInput,
  ValidationError,
} from "../../src/index.js";
import { READ_FILE_TOOL } from "../support/coding-agent.js";

/**
 * A newcomer's agent: the quick start's loop and configuration (`new AgentSession({
 * contextLimit })`), one request answered by a long tool loop with large results, through the
 * real SDK against the loopback Messages API, which refuses any request over its window and
 * signs a thinking block at the start of every reply.
 */

const WINDOW = 50_000;
const SYSTEM = "You are a coding agent working in the user's repository.";
const TOOLS: Tool[] = [READ_FILE_TOOL];

let server: MessagesApiServer;
let calls = 0;
beforeAll(async () => {
  server = await MessagesApiServer.start({
    thinkByDefault: true,
    contextWindow: WINDOW,
    onMessages: (request) => {
      const body = request.body as { messages: unknown[] };
      calls += 1;
      return {
        type: "message",
        content: [
          { type: "text", text: "Reading the next file." },
          {
            type: "tool_use",
            id: `toolu_n${calls}`,
            name: "read_file",
            input: { path: `src/module${calls}.ts` },
          },
        ],
        stopReason: "tool_use",
        usage: {
          input_tokens: roughTokens({ system: SYSTEM, tools: TOOLS, ...body }),
          output_tokens: 40,
        },
      };
    },
  });
});
afterAll(() => server.close());

/** 6–18k characters of file content, with a one-line compact summary. */
function runTools(uses: ToolUseBlock[], step: number, size?: number): ToolResultInput[] {
  return uses.map((use) => ({
    type: "tool_result",
    tool_use_id: use.id,
    content: `// ${JSON.stringify(use.input)}\n${"x".repeat(size ?? 6000 + (step % 7) * 2000)}`,
    compactSummary: `read ${JSON.stringify(use.input)}: 1 module`,
  }));
}

async function newcomerLoop(
  steps: number,
  during: (session: AgentSession, step: number) => Promise<void> | void = () => {},
  size?: (step: number) => number | undefined,
) {
  const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
  const events: CompactionEvent[] = [];
  const session = new AgentSession({
    contextLimit: WINDOW,
    onEvent: (event) => events.push(event),
  });
  const sizes: number[] = [];
  session.addUserText(
    "Read every module and fix the failing build. Never touch package-lock.json.",
  );
  for (let step = 1; step <= steps; step += 1) {
    await session.maybeCompact();
    await during(session, step);
    const messages = toAnthropicMessages(session.messages);
    sizes.push(roughTokens({ system: SYSTEM, tools: TOOLS, messages }));
    const response = await client.messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 4096,
      system: SYSTEM,
      tools: TOOLS,
      messages,
    });
    appendAnthropicResponse(session, response);
    const uses = response.content.filter((block) => block.type === "tool_use");
    session.addToolResults(runTools(uses, step, size?.(step)));
  }
  return { session, sizes, events };
}

describe("a newcomer's long tool loop (one request, 60 tool steps, 6–18k-character results, 50k window)", () => {
  it("stays under the window with the quick start's defaults, compacting rarely and never for nothing", async () => {
    const { sizes, events } = await newcomerLoop(60);
    expect(sizes).toHaveLength(60);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    const ends = events.filter((event) => event.type === "compaction_end");
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.length).toBeLessThan(20);
    // No start/end pair that changed nothing: a sync compactor that changes nothing says why.
    for (const end of ends) expect(end.tokensAfter).toBeLessThan(end.tokensBefore);
    expect(events.some((event) => event.type === "context_overflow")).toBe(false);
  });

  it("forceCompact from the app's /compact frees tokens inside the turn", async () => {
    const freed: number[] = [];
    await newcomerLoop(30, async (session, step) => {
      if (step !== 20) return;
      const result = await session.forceCompact();
      freed.push((result.tokensBefore ?? 0) - (result.tokensAfter ?? 0));
      expect(result.boundaries.length).toBeGreaterThan(0);
    });
    expect(freed).toHaveLength(1);
    expect(freed[0]).toBeGreaterThan(0);
  });

  it("a 300,000-character tool result pushes no request over the window: it is clamped, the original handed over", async () => {
    const { sizes, events } = await newcomerLoop(6, undefined, (step) =>
      step === 3 ? 300_000 : undefined,
    );
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    const clamped = events.filter((event) => event.type === "content_clamped");
    expect(clamped).toHaveLength(1);
    expect(clamped[0]).toMatchObject({ toolUseId: expect.stringMatching(/^toolu_n/) });
    if (clamped[0]?.type === "content_clamped")
      expect(clamped[0].original.length).toBeGreaterThan(300_000);
  });

  it("refuses a result that answers no tool_use of the previous assistant message", async () => {
    const { session } = await newcomerLoop(1);
    // The last message answers the last call: a new result answers nothing now.
    expect(() =>
      session.addToolResults([{ type: "tool_result", tool_use_id: "toolu_typo", content: "x" }]),
    ).toThrow(ValidationError);
  });
});
