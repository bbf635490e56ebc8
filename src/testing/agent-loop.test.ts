import type { ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { TOOLS } from "../../test/support/coding-agent.js";
import { AnthropicCompactor } from "../anthropic/anthropic-compactor.js";
import { AnthropicLlmClient } from "../anthropic/llm-client.js";
import { toAnthropicMessages } from "../anthropic/request.js";
import { appendAnthropicResponse } from "../anthropic/response.js";
import { HybridCompactor } from "../compactors/hybrid-compactor.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionEvent } from "../session/events.js";
import { AnthropicStandIn, type StandInRequest } from "./anthropic-stand-in.js";

// The README's agent loop, run offline against the stand-in: every request the session builds
// goes through the stand-in's rules (pairing, the window, the preserved-thinking prefix check),
// so a compaction that broke one would throw here.

const model = "claude-sonnet-5-5";
const system = "You are a coding agent. Read files with read_file.";
const FILES = Array.from({ length: 14 }, (_, index) => `src/module-${index}.ts`);
const fileText = (path: string) =>
  Array.from(
    { length: 60 },
    (_, line) => `export const ${path.slice(4, -3).replace("-", "_")}_${line} = ${line};`,
  ).join("\n");

/**
 * The agent: one read per request, at most `readsPerTask` for each user request, then an
 * answer; it remembers what it read (the request may no longer show it after a compaction).
 * A summary request (no tools) gets a summary.
 */
function createAgent(readsPerTask = Number.POSITIVE_INFINITY) {
  let read = 0;
  let readThisTask = 0;
  return (request: StandInRequest) => {
    if (request.body["tools"] === undefined) {
      return "Goal: read every module. Rule: never touch package-lock.json.";
    }
    const messages = request.body["messages"] as { role: string; content: unknown }[];
    const last = JSON.stringify(messages.at(-1)?.content ?? "");
    if (!last.includes("tool_result")) readThisTask = 0;
    const next = FILES[read];
    if (next === undefined || readThisTask >= readsPerTask) {
      return { text: `Read ${read} modules; package-lock.json untouched.` };
    }
    read += 1;
    readThisTask += 1;
    return { text: `Reading ${next}.`, toolCalls: [{ name: "read_file", input: { path: next } }] };
  };
}

const FIRST_TASK = "Read every module. Never touch package-lock.json.";

/** Runs the loop until the agent answers without a tool call. */
async function runLoop(
  session: AgentSession,
  client: AnthropicStandIn,
  task = FIRST_TASK,
  betas: string[] = [],
) {
  session.addUserText(task);
  for (let turn = 0; turn < 40; turn += 1) {
    await session.maybeCompact(); // 1. compact first…
    const body = {
      model,
      max_tokens: 1024,
      system,
      tools: TOOLS,
      thinking: { type: "adaptive" as const },
    };
    const messages = toAnthropicMessages(session.messages); // 2. …then build the request
    const response =
      betas.length === 0
        ? await client.messages.create({ ...body, messages })
        : await client.beta.messages.create({ ...body, messages, betas } as never);
    appendAnthropicResponse(session, response); // 3. the reply and its usage
    const calls = response.content.filter(
      (block): block is ToolUseBlock => block.type === "tool_use",
    );
    if (calls.length === 0) return response;
    const results: ToolResultInput[] = calls.map((call) => ({
      type: "tool_result",
      tool_use_id: call.id,
      content: fileText(String((call.input as { path: string }).path)),
    }));
    session.addToolResults(results); // 4. the results, in the same turn
  }
  throw new Error("the loop did not finish");
}

describe("an agent loop on the AnthropicStandIn", () => {
  it("runs a long tool loop with thinking through masking and summaries, every request valid and inside the window", async () => {
    const client = new AnthropicStandIn({ contextWindow: 6_000, defaultReply: createAgent() });
    const summarizer = new AnthropicLlmClient({ client, model: "claude-haiku-5-5" });
    const session = new AgentSession({
      contextLimit: 6_000,
      // 3 reads kept whole (~2,000 tokens): the default 10 would fill this window, and neither
      // masking nor the summary (which keeps them too) could act; the last resort would.
      compactor: new HybridCompactor({
        client: summarizer,
        keepRecentTurns: 1,
        keepRecentToolUses: 3,
      }),
    });
    const events: CompactionEvent[] = [];
    session.on((event) => events.push(event));
    const last = await runLoop(session, client);
    expect(last.content.at(-1)).toMatchObject({
      text: "Read 14 modules; package-lock.json untouched.",
    });
    expect(events.filter((event) => event.type === "compaction_end").length).toBeGreaterThan(0);
    const results = events.flatMap((event) =>
      event.type === "compaction_end" ? [event.result] : [],
    );
    expect(results.some((result) => result.toolResultsRedacted > 0)).toBe(true);
    expect(results.some((result) => (result as { summarized?: boolean }).summarized)).toBe(true);
    expect(events.filter((event) => event.type === "compaction_failed")).toEqual([]);
    const agentRequests = client.requests.filter((request) => request.body["tools"] !== undefined);
    expect(agentRequests.length).toBe(FILES.length + 1);
    // The 14 reads take ~9,000 tokens: the same loop without compaction overflows this 6,000 window (below).
    expect(last.usage.input_tokens).toBeLessThanOrEqual(6_000);
    expect(JSON.stringify(client.lastRequest?.body["messages"])).toContain("package-lock.json");
  });

  it("refuses the same loop without compaction: the window is enforced", async () => {
    const client = new AnthropicStandIn({ contextWindow: 6_000, defaultReply: createAgent() });
    const session = new AgentSession({
      contextLimit: 6_000,
      compactor: false,
      trimOnOverflow: false,
    });
    await expect(runLoop(session, client)).rejects.toMatchObject({
      status: 400,
      apiMessage: expect.stringMatching(/^prompt is too long/),
    });
  });

  it("runs with server-side compaction (AnthropicCompactor on beta.messages) over several requests", async () => {
    const client = new AnthropicStandIn({ contextWindow: 6_000, defaultReply: createAgent(3) });
    const compactor = new AnthropicCompactor({
      client,
      model,
      system,
      tools: TOOLS,
      keepRecentTurns: 1,
    });
    const session = new AgentSession({
      contextLimit: 6_000,
      compactor: false,
      llmCompactor: compactor,
    });
    const events: CompactionEvent[] = [];
    session.on((event) => events.push(event));
    const tasks = [FIRST_TASK, "Go on.", "Continue.", "Keep going.", "Finish the rest."];
    let last: Awaited<ReturnType<typeof runLoop>> | undefined;
    for (const task of tasks) last = await runLoop(session, client, task, ["compact-2026-09-04"]);
    expect(last?.content.at(-1)).toMatchObject({
      text: "Read 14 modules; package-lock.json untouched.",
    });
    expect(client.requests.filter((request) => request.compaction).length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === "compaction_end").length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === "compaction_failed")).toEqual([]);
  });
});
