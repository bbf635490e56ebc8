/**
 * A tool-using agent on the real `@anthropic-ai/sdk`, kept inside its context window by
 * agent-compaction:
 *
 *   maybeCompact() → build the request from the compacted history → messages.create
 *   → append the response and record its usage → run the tools → addToolResults
 *
 * With ANTHROPIC_API_KEY set it talks to the real API (model: ANTHROPIC_MODEL, default
 * claude-haiku-4-5). Without it, it talks to a built-in offline stand-in: a loopback HTTP
 * server speaking the Messages API, so `npx tsx examples/anthropic-agent.ts` always runs.
 * The context window is set small on purpose, so compaction happens within a few requests.
 */
import { pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import {
  AnthropicLlmClient,
  AnthropicTokenCounter,
  appendAnthropicResponse,
  toAnthropicMessages,
} from "../src/anthropic/index.js";
import type { ToolUseBlock } from "../src/index.js";
import {
  type AgentRunReport,
  type RunAgentOptions as CodeReadingOptions,
  codeReadingSession,
  emptyReport,
  percent,
  READ_FILE,
  SYSTEM,
  TASKS,
  takeStep,
} from "./support/code-reading.js";
import { MessagesApiServer } from "./support/messages-api-server.js";
import { offlineClaude } from "./support/offline-claude.js";

const TOOLS: Tool[] = [
  { name: READ_FILE.name, description: READ_FILE.description, input_schema: READ_FILE.schema },
];

/** What {@link runAgent} needs. */
export type RunAgentOptions = CodeReadingOptions<Anthropic>;

export type { AgentRunReport };

/** The agent loop. */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunReport> {
  const { client, model, log } = options;
  const contextLimit = options.contextLimit ?? 9000;
  const maxSteps = options.maxStepsPerTask ?? 8;
  const report = emptyReport();
  const session = codeReadingSession(
    contextLimit,
    new AnthropicLlmClient({ client, model }),
    report,
    log,
  );

  for (const task of TASKS) {
    log(`▶ user: ${task}`);
    session.addUserText(task);
    for (let step = 0; step < maxSteps; step += 1) {
      // Compact first, then build the request from what is left.
      await session.maybeCompact();
      report.peakContextUsed = Math.max(report.peakContextUsed, session.contextUsed);
      const response = await client.messages.create({
        model,
        max_tokens: 1024,
        system: SYSTEM,
        tools: TOOLS,
        messages: toAnthropicMessages(session.messages),
      });
      report.requests += 1;
      const { message } = appendAnthropicResponse(session, response);
      log(`  context after the reply: ${percent(session.contextUsed, contextLimit)}`);
      const calls = (message?.content ?? []).filter(
        (block): block is ToolUseBlock => block.type === "tool_use",
      );
      const ended = response.stop_reason !== "tool_use";
      if (!takeStep(session, { message, calls: ended ? [] : calls }, report, log)) break;
    }
  }
  return { ...report, session };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const online = Boolean(process.env["ANTHROPIC_API_KEY"]);
  const server = online
    ? undefined
    : await MessagesApiServer.start({ onMessages: offlineClaude() });
  const client = server
    ? new Anthropic({ baseURL: server.url, apiKey: "offline-stand-in", maxRetries: 0 })
    : new Anthropic();
  const model = process.env["ANTHROPIC_MODEL"] ?? "claude-haiku-4-5";
  log(
    online
      ? `Talking to the Anthropic API (${model}).`
      : `ANTHROPIC_API_KEY is not set: talking to the offline stand-in at ${server?.url}.`,
  );
  try {
    const report = await runAgent({ client, model, log });
    const { session } = report;
    const exact = await new AnthropicTokenCounter({
      client,
      model,
      system: SYSTEM,
      tools: TOOLS,
      onFallback: ({ error }) =>
        log(`  (countTokens failed, using the local estimate: ${String(error)})`),
    }).countTokens(session.messages);
    const first = toAnthropicMessages(session.messages)[0];
    const opening =
      typeof first?.content === "string"
        ? first.content
        : first?.content[0]?.type === "text"
          ? first.content[0].text
          : "";
    log("");
    log(
      `Done: ${report.requests} requests, ${report.toolCalls} tool calls, peak context ${percent(report.peakContextUsed, session.contextLimit)}.`,
    );
    log(
      `Compactions: ${report.compactions.threshold} by tool-result summaries, ${report.compactions.llm} by LLM summary, ${report.compactions.failed} failed.`,
    );
    log(
      `The final history: ${session.messages.length} messages, ${exact.toLocaleString("en-US")} tokens by countTokens.`,
    );
    log(`It opens with: ${opening.slice(0, 160)}${opening.length > 160 ? "…" : ""}`);
  } finally {
    await server?.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
