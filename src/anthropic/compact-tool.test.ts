import type { Tool, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { AgentSession } from "../session/agent-session.js";
import { AnthropicStandIn, type StandInRequest } from "../testing/anthropic-stand-in.js";
import { answerCompact, COMPACT_TOOL } from "./compact-tool.js";
import { AnthropicLlmClient } from "./llm-client.js";
import { toAnthropicMessages } from "./request.js";
import { appendAnthropicResponse } from "./response.js";

const model = "claude-sonnet-5-5";
const system = "You are a coding agent.";
const READ_FILE: Tool = {
  name: "read_file",
  description: "Reads a file",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
};
const tools: Tool[] = [READ_FILE, COMPACT_TOOL];
const NOTES = "Keep: parseConfig lives in src/config.ts and must stay synchronous.";
const SUMMARY = "Goal: fix config loading. Done: read src/config.ts and src/load.ts.";
/** A file: declarations, then a method's body (nested, so the outline a summary keeps leaves it out). */
const fileText = (path: string) =>
  `// ${path}\nexport class Loader {\n    load() {\n${"        total += value;\n".repeat(150)}    }\n}\n`;

/**
 * The model: the first task reads two files and answers; the second starts at a natural
 * boundary by asking for a compaction, then answers. Summary requests (no tools) get a summary.
 */
function model_(request: StandInRequest) {
  if (request.body["tools"] === undefined) return SUMMARY;
  const text = JSON.stringify(request.body["messages"]);
  if (!text.includes("Now add a test")) {
    if (!text.includes("src/config.ts\\n")) {
      return { toolCalls: [{ name: "read_file", input: { path: "src/config.ts" } }] };
    }
    if (!text.includes("src/load.ts\\n")) {
      return { toolCalls: [{ name: "read_file", input: { path: "src/load.ts" } }] };
    }
    return "Fixed: loadConfig now awaits parseConfig's caller.";
  }
  if (!text.includes(COMPACT_TOOL.name)) {
    return {
      text: "The fix is done; compacting before the next sub-task.",
      toolCalls: [{ name: COMPACT_TOOL.name, input: { notes: NOTES } }],
    };
  }
  return "Added test/config.test.ts.";
}

/** The README loop: maybeCompact, create, append, answer the calls, addToolResults. */
async function runTask(session: AgentSession, client: AnthropicStandIn, task: string) {
  session.addUserText(task);
  const reports = [];
  for (let step = 0; step < 10; step += 1) {
    reports.push(await session.maybeCompact());
    const response = await client.messages.create({
      model,
      max_tokens: 1024,
      system,
      tools,
      messages: toAnthropicMessages(session.messages),
    });
    appendAnthropicResponse(session, response);
    const calls = response.content.filter(
      (block): block is ToolUseBlock => block.type === "tool_use",
    );
    if (calls.length === 0) return reports;
    const results: ToolResultInput[] = calls.map((call) =>
      call.name === COMPACT_TOOL.name
        ? answerCompact(session, call)
        : {
            type: "tool_result",
            tool_use_id: call.id,
            content: fileText(String((call.input as { path: string }).path)),
          },
    );
    session.addToolResults(results);
  }
  throw new Error("the loop did not end");
}

describe("COMPACT_TOOL in the README loop (AnthropicStandIn)", () => {
  it("the model's call compacts before the next request, which is valid and carries the notes' summary", async () => {
    const client = new AnthropicStandIn({ contextWindow: 200_000, defaultReply: model_ });
    const session = new AgentSession({
      contextLimit: 200_000,
      llmCompactor: new LLMCompactor(new AnthropicLlmClient({ client, model }), {
        keepRecentTurns: 1,
      }),
    });

    const first = await runTask(session, client, "Fix config loading.");
    expect(first.some((report) => report.compacted)).toBe(false); // far below every threshold
    const requestsBefore = client.requests.length;

    const second = await runTask(session, client, "Now add a test for it.");

    // Requests of the second task: the call, the summary, then the compacted request.
    const [call, summary, next] = client.requests.slice(requestsBefore);
    expect(JSON.stringify(call?.body)).toContain(COMPACT_TOOL.name);
    expect(summary?.body["tools"]).toBeUndefined();
    expect(JSON.stringify(summary?.body)).toContain(NOTES); // the notes reached the summarizer
    const sent = JSON.stringify(next?.body["messages"]);
    expect(sent).toContain(SUMMARY);
    expect(sent).not.toContain("total += value;"); // the first task's reads folded
    expect(sent).toContain("Compaction scheduled"); // the call answered, paired, in place
    expect(second.filter((report) => report.compacted)).toHaveLength(1);
    expect(session.compactionRequested).toBe(false);
    expect(client.lastRequest?.body["messages"]).toEqual(next?.body["messages"]);
    expect(session.messages.at(-1)?.content).toEqual([
      expect.objectContaining({ text: "Added test/config.test.ts." }),
    ]);
  });

  it("answers with an error result and schedules nothing for bad notes", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    expect(answerCompact(session, { id: "toolu_1", input: { notes: 7 } })).toMatchObject({
      tool_use_id: "toolu_1",
      is_error: true,
    });
    expect(
      answerCompact(session, { id: "toolu_2", input: { notes: "x".repeat(8_001) } }),
    ).toMatchObject({ is_error: true });
    expect(session.compactionRequested).toBe(false);
    expect(answerCompact(session, { id: "toolu_3", input: null })).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_3",
      content: expect.stringContaining("before your next request"),
    });
    expect(session.compactionRequested).toBe(true);
  });

  it("describes when to call it and when not", () => {
    expect(COMPACT_TOOL.description).toContain("natural boundary");
    expect(COMPACT_TOOL.description).toContain("Do not call it in the middle of a derivation");
    expect("required" in COMPACT_TOOL.input_schema).toBe(false);
  });
});
