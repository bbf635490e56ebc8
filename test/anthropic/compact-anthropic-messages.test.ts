import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compactAnthropicMessages,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import { AgentSession, ValidationError } from "../../src/index.js";
import { MemoryArchive } from "../../src/session/archive.js";
import { SYSTEM, TOOLS, toolLoopScript, toolOutput } from "../support/coding-agent.js";
import { MessagesApiServer, roughTokens } from "../support/messages-api-server.js";

/**
 * `compactAnthropicMessages`, the Messages API's one-call stateless helper: a server that gets
 * the whole history with each request compacts it as a session would, and the real SDK's next
 * request is never refused (preserved thinking enforced), at every size under the window.
 */

const WINDOW = 24_000;

let server: MessagesApiServer;
beforeAll(async () => {
  server = await MessagesApiServer.start({
    onMessages: toolLoopScript({
      endsTurn: (messages) =>
        messages.filter((message) => message.role === "assistant").length % 9 === 8,
      path: (n) => `src/f${n}.ts`,
    }),
    thinkByDefault: true,
    preservedThinking: "enforced",
    contextWindow: WINDOW,
  });
});
afterAll(() => server.close());

/** The agent's side after `reply`: its tool results, or the user's next request. */
function answer(reply: Anthropic.Message, step: number): MessageParam {
  const uses = reply.content.filter((block) => block.type === "tool_use");
  if (uses.length === 0)
    return { role: "user", content: `Next step ${step}: keep going. Never edit generated files.` };
  return {
    role: "user",
    content: uses.map((use) => ({
      type: "tool_result" as const,
      tool_use_id: use.id,
      content: toolOutput(use.id, step),
    })),
  };
}

/** A stateless server's loop: the history compacted before each request, the reply appended to what was sent. */
async function statelessLoop(steps: number, options: { archive?: MemoryArchive } = {}) {
  const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
  let history: MessageParam[] = [
    { role: "user", content: "Read the source tree and fix the failing test." },
  ];
  const outcome = { rejected: [] as string[], compactions: 0, largest: 0, history };
  for (let step = 1; step <= steps; step += 1) {
    const { messages, compacted } = await compactAnthropicMessages(history, {
      contextLimit: WINDOW,
      overheadTokens: roughTokens({ system: SYSTEM, tools: TOOLS, messages: [] }),
      ...options,
    });
    if (compacted) outcome.compactions += 1;
    outcome.largest = Math.max(
      outcome.largest,
      roughTokens({ system: SYSTEM, tools: TOOLS, messages }),
    );
    let reply: Anthropic.Message;
    try {
      reply = await client.messages.create({
        model: "claude-fable-5-1",
        max_tokens: 1024,
        system: SYSTEM,
        tools: TOOLS,
        messages,
      });
    } catch (error) {
      outcome.rejected.push(error instanceof Error ? error.message : String(error));
      break;
    }
    history = [...messages, { role: "assistant", content: reply.content }, answer(reply, step)];
  }
  outcome.history = history;
  return outcome;
}

describe("compactAnthropicMessages on a stateless server", () => {
  it("keeps 120 requests with signed thinking in every reply under the window, none refused", async () => {
    const outcome = await statelessLoop(120);
    expect(outcome.rejected).toEqual([]);
    expect(outcome.compactions).toBeGreaterThan(0);
    expect(outcome.largest).toBeLessThan(WINDOW);
    // The history went on from what was sent: it starts where the last compaction left it.
    expect(outcome.history.length).toBeLessThan(2 * 120);
  });

  it("keeps what it replaced in the archive, under the handle its placeholder names", async () => {
    const archive = new MemoryArchive();
    const outcome = await statelessLoop(30, { archive });
    expect(outcome.rejected).toEqual([]);
    const handles = [
      ...JSON.stringify(outcome.history).matchAll(/\[recall (r\d+-[0-9a-f]{4})\]/g),
    ].map(([, handle]) => handle!);
    expect(handles.length).toBeGreaterThan(0);
    for (const handle of handles) {
      const record = archive.get("stateless", handle);
      expect(JSON.stringify(record)).toContain("export const value = 1;");
    }
  });
});

describe("compactAnthropicMessages keeps the session's decisions and its contract", () => {
  /** A tool loop of `calls` reads of about `tokens` tokens each. */
  function toolLoop(calls: number, tokens = 1_000): MessageParam[] {
    const params: MessageParam[] = [{ role: "user", content: "Read every file under src/." }];
    for (let index = 1; index <= calls; index += 1) {
      const id = `toolu_${index}`;
      params.push(
        {
          role: "assistant",
          content: [
            { type: "text", text: `Reading src/f${index}.ts.` },
            { type: "tool_use", id, name: "read_file", input: { path: `src/f${index}.ts` } },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: id, content: "x".repeat(tokens * 4) }],
        },
      );
    }
    return params;
  }

  it("at each utilisation, takes the decision a new session takes and sends the same messages", async () => {
    const params = toolLoop(12);
    let compactedAt = 0;
    for (const utilisation of [0.3, 0.45, 0.55, 0.61, 0.7, 0.8, 0.9, 0.99]) {
      const contextLimit = Math.round(12_000 / utilisation);
      const session = new AgentSession({ contextLimit, archive: false });
      session.append(...fromAnthropicMessages(params, { sessionId: session.sessionId }));
      const report = await session.maybeCompact();
      const ours = await compactAnthropicMessages(params, { contextLimit });
      expect(ours.compacted).toBe(report.compacted);
      expect(ours.messages).toEqual(toAnthropicMessages(session.messages));
      if (ours.compacted) compactedAt += 1;
    }
    expect(compactedAt).toBeGreaterThan(0);
  });

  it("hands the input array back, untouched, when nothing is due", async () => {
    const params = toolLoop(3);
    const before = structuredClone(params);
    const outcome = await compactAnthropicMessages(params, { contextLimit: 200_000 });
    expect(outcome.messages).toBe(params);
    expect(outcome.compacted).toBe(false);
    expect(params).toEqual(before);
  });

  it("does not trust a reported context far below the estimate (a gateway's 0)", async () => {
    const params = toolLoop(12);
    const outcome = await compactAnthropicMessages(params, {
      contextLimit: 14_000,
      contextUsed: 0,
    });
    expect(outcome.compacted).toBe(true);
    expect(outcome.contextUsed).toBeGreaterThan(12_000);
  });

  it("refuses what is not a conversation or not an option, naming it, and changes nothing", async () => {
    const params = toolLoop(2);
    const before = structuredClone(params);
    const refusal = async (call: Promise<unknown>) => {
      const error = await call.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).issues.map((issue) => issue.path.join("."));
    };
    expect(await refusal(compactAnthropicMessages({} as never, { contextLimit: 1_000 }))).toEqual([
      "",
    ]);
    const broken = [...params, { role: "user", content: [{ type: "tool_result" }] }];
    expect(await refusal(compactAnthropicMessages(broken, { contextLimit: 1_000 }))).toContainEqual(
      expect.stringContaining("messages.5.content.0.tool_use_id"),
    );
    expect(
      await refusal(
        compactAnthropicMessages(params, { contextLimit: 1_000, contextUsed: Number.NaN }),
      ),
    ).toEqual(["contextUsed"]);
    expect(await refusal(compactAnthropicMessages(params, { contextLimit: -1 }))).toEqual([
      "contextLimit",
    ]);
    expect(params).toEqual(before);
  });
});
