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
import {
  AgentSession,
  type CompactionEvent,
  LLMCompactor,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../src/index.js";
import { MessagesApiServer } from "./support/messages-api-server.js";
import { offlineClaude } from "./support/offline-claude.js";

/** A small repository the agent's tools read from. */
const FILES: Record<string, string> = Object.fromEntries(
  [
    "src/lexer.ts",
    "src/parser.ts",
    "src/ast.ts",
    "src/printer.ts",
    "src/errors.ts",
    "src/index.ts",
  ].map((path, fileIndex) => [
    path,
    Array.from(
      { length: 40 + fileIndex * 6 },
      (_, line) =>
        `export function ${path.slice(4, -3)}Step${line}(input: string): string { return input.trim() + "${line}"; }`,
    ).join("\n"),
  ]),
);

const TASKS = [
  "Read src/lexer.ts and src/parser.ts and tell me how tokens flow. A rule for this whole session: never modify files under vendor/.",
  "Now read src/ast.ts and src/printer.ts.",
  "Check src/errors.ts and src/index.ts for the public API.",
  "One line: what did you find, and which rule did I give you?",
];

const SYSTEM =
  "You are a code-reading assistant. Read the files the user names with read_file, then answer in two sentences at most.";

const TOOLS: Tool[] = [
  {
    name: "read_file",
    description: "Returns the contents of a file of the repository.",
    input_schema: {
      type: "object",
      properties: { path: { type: "string", description: "Path such as src/lexer.ts" } },
      required: ["path"],
    },
  },
];

/** Runs one tool call; the compact summary is what threshold compaction keeps of it later. */
function runTool(call: ToolUseBlock): ToolResultBlock {
  const path = typeof call.input.path === "string" ? call.input.path : "";
  const contents = FILES[path];
  if (call.name !== "read_file" || contents === undefined) {
    return {
      type: "tool_result",
      toolUseId: call.id,
      content: `No such file: ${path || "(none)"}. Files: ${Object.keys(FILES).join(", ")}`,
      isError: true,
      compactSummary: `[read_file ${path}: not found]`,
    };
  }
  const lines = contents.split("\n").length;
  return {
    type: "tool_result",
    toolUseId: call.id,
    content: contents,
    isError: false,
    compactSummary: `[read_file ${path}: ${lines} lines, functions ${path.slice(4, -3)}Step0…${lines - 1}]`,
  };
}

/** What {@link runAgent} needs. */
export interface RunAgentOptions {
  client: Anthropic;
  model: string;
  /** Where the progress lines go. */
  log: (line: string) => void;
  /** The pretend context window. @default 9000 */
  contextLimit?: number;
  /** Tool-use rounds allowed per task, a guard against a model that never stops. @default 8 */
  maxStepsPerTask?: number;
}

/** What happened in a run. */
export interface AgentRunReport {
  requests: number;
  toolCalls: number;
  /** Compactions that changed the conversation, by strategy (`threshold`, `llm`), and failures. */
  compactions: { threshold: number; llm: number; failed: number };
  /** The highest context measure seen before a request was sent. */
  peakContextUsed: number;
  /** The session at the end. */
  session: AgentSession;
}

function percent(used: number, limit: number): string {
  return `${used.toLocaleString("en-US")} / ${limit.toLocaleString("en-US")} tokens (${Math.round((used / limit) * 100)}%)`;
}

/** The agent loop. */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunReport> {
  const { client, model, log } = options;
  const contextLimit = options.contextLimit ?? 9000;
  const maxSteps = options.maxStepsPerTask ?? 8;
  const report: Omit<AgentRunReport, "session"> = {
    requests: 0,
    toolCalls: 0,
    compactions: { threshold: 0, llm: 0, failed: 0 },
    peakContextUsed: 0,
  };
  const onEvent = (event: CompactionEvent) => {
    if (event.type === "compaction_end" && event.tokensAfter < event.tokensBefore) {
      if (event.strategy === "threshold" || event.strategy === "llm")
        report.compactions[event.strategy] += 1;
      const { result } = event;
      const what =
        event.strategy === "threshold"
          ? `${result.toolResultsSummarized} tool result(s) replaced by their compact summaries`
          : `${result.turnsCompacted} turn(s) folded into one summary message`;
      log(
        `  ⇣ compaction (${event.strategy}): ${what}; context ${event.contextUsedBefore.toLocaleString("en-US")} → ${event.contextUsedAfter.toLocaleString("en-US")} tokens`,
      );
    } else if (event.type === "compaction_failed") {
      report.compactions.failed += 1;
      log(`  ! compaction failed (${event.strategy}): ${event.error.code}: ${event.error.message}`);
    }
  };

  const session = new AgentSession({
    contextLimit,
    // Cheap first: old tool results give way to their compact summaries.
    compactor: { type: "threshold", config: { threshold: 0.5, keepRecentTurns: 2 } },
    // Then, if that is not enough, Claude summarises the older turns.
    llmCompactor: new LLMCompactor(new AnthropicLlmClient({ client, model }), {
      threshold: 0.6,
      keepRecentTurns: 1,
      maxSummaryTokens: 512,
    }),
    onEvent,
  });

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
      if (response.stop_reason !== "tool_use" || calls.length === 0) {
        const text = (message?.content ?? [])
          .map((block) => (block.type === "text" ? block.text : ""))
          .join("");
        log(`  ◀ assistant: ${text}`);
        break;
      }
      for (const call of calls) log(`  → ${call.name}(${JSON.stringify(call.input)})`);
      report.toolCalls += calls.length;
      session.addToolResults(calls.map(runTool));
    }
  }
  return { ...report, session };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const online = Boolean(process.env.ANTHROPIC_API_KEY);
  const server = online
    ? undefined
    : await MessagesApiServer.start({ onMessages: offlineClaude() });
  const client = server
    ? new Anthropic({ baseURL: server.url, apiKey: "offline-stand-in", maxRetries: 0 })
    : new Anthropic();
  const model = process.env.ANTHROPIC_MODEL ?? "claude-haiku-4-5";
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
