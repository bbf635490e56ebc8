/**
 * A tool-using agent on the real `openai` SDK's Chat Completions API, kept inside its context
 * window by agent-compaction:
 *
 *   maybeCompact() → chatCompletionsRequest (toChatMessages) → chat.completions.create
 *   → appendChatCompletion (reply, reasoning, usage) → run the tools → addToolResults
 *
 * With OPENAI_API_KEY set it talks to the real API (model: OPENAI_MODEL, default
 * gpt-5.6-luna), or to any compatible host named by OPENAI_BASE_URL (vLLM, Ollama, Groq,
 * DeepSeek, OpenRouter; set CHAT_REASONING=drop for Groq). Without it, it talks to a built-in
 * offline stand-in: a loopback HTTP server speaking Chat Completions with DeepSeek's rule for
 * reasoning, so `npx tsx examples/chat-completions-agent.ts` always runs. The context window
 * is set small on purpose, so compaction happens within a few requests.
 */
import { pathToFileURL } from "node:url";
import OpenAI from "openai";
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";
import {
  appendChatCompletion,
  ChatCompletionsLlmClient,
  type ChatCompletionsRequestDescription,
  chatCompletionsRequest,
  type ReasoningPolicy,
} from "../src/chat-completions/index.js";
import {
  AgentSession,
  LLMCompactor,
  type ToolResultBlock,
  validateConversation,
} from "../src/index.js";
import { ChatCompletionsServer } from "./support/chat-completions-server.js";
import { readFile, SYSTEM, TASKS } from "./support/code-reading-task.js";
import { logCompactions } from "./support/compaction-log.js";
import { offlineChatModel } from "./support/offline-chat-model.js";

const READ_FILE: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "read_file",
    description: "Returns the contents of a file of the repository.",
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "Path such as src/lexer.ts" } },
      required: ["path"],
    },
  },
};

/** Runs one tool call; the compact summary is what masking keeps of it later. */
function runTool(call: ChatCompletionMessageFunctionToolCall): ToolResultBlock {
  let path = "";
  try {
    path = String(JSON.parse(call.function.arguments).path ?? "");
  } catch {
    // Malformed arguments: reported as a missing file.
  }
  return { type: "tool_result", toolUseId: call.id, ...readFile(call.function.name, path) };
}

/** What {@link runAgent} needs. */
export interface RunAgentOptions {
  client: OpenAI;
  model: string;
  /** Where the progress lines go. */
  log: (line: string) => void;
  /** What becomes of the host's reasoning fields ("drop" for Groq). @default "keep" */
  reasoning?: ReasoningPolicy;
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
  /** The last answer. */
  answer: string;
  session: AgentSession;
}

/** The agent loop. */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunReport> {
  const { client, model, log } = options;
  const maxSteps = options.maxStepsPerTask ?? 8;
  const agent: ChatCompletionsRequestDescription = {
    model,
    system: SYSTEM,
    tools: [READ_FILE],
    reasoning: options.reasoning ?? "keep",
  };
  const report: Omit<AgentRunReport, "session"> = {
    requests: 0,
    toolCalls: 0,
    compactions: { threshold: 0, llm: 0, failed: 0 },
    answer: "",
  };
  const session = new AgentSession({
    contextLimit: options.contextLimit ?? 9000,
    // Cheap first: old tool results give way to their compact summaries.
    compactor: { type: "threshold", config: { threshold: 0.5, keepRecentTurns: 2 } },
    // Then the same model summarises older turns, sent as the agent's own request (cache reads).
    llmCompactor: new LLMCompactor(new ChatCompletionsLlmClient({ client, request: agent }), {
      threshold: 0.6,
      keepRecentTurns: 1,
      maxSummaryTokens: 512,
    }),
    onEvent: logCompactions(report.compactions, log),
  });
  for (const task of TASKS) {
    log(`▶ user: ${task}`);
    session.addUserText(task);
    for (let step = 0; step < maxSteps; step += 1) {
      await session.maybeCompact(); // compact first, then build the request from what is left
      const problems = validateConversation(session.messages, { provider: "chat-completions" });
      if (problems.length > 0)
        throw new Error(problems.map((problem) => problem.message).join("\n"));
      const completion = await client.chat.completions.create({
        ...chatCompletionsRequest(agent, session.messages),
        max_completion_tokens: 1024,
      });
      report.requests += 1;
      appendChatCompletion(session, completion);
      const reply = completion.choices[0]?.message;
      const calls = (reply?.tool_calls ?? []).filter((call) => call.type === "function");
      if (calls.length === 0) {
        report.answer = reply?.content ?? "";
        log(`  ◀ assistant: ${report.answer}`);
        break;
      }
      for (const call of calls) log(`  → ${call.function.name}(${call.function.arguments})`);
      report.toolCalls += calls.length;
      session.addToolResults(calls.map(runTool));
    }
  }
  return { ...report, session };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const online = Boolean(process.env["OPENAI_API_KEY"]);
  const server = online
    ? undefined
    : await ChatCompletionsServer.start(offlineChatModel(), {
        reasoning: "required-for-tool-calls",
      });
  const client = server
    ? new OpenAI({ baseURL: server.url, apiKey: "offline-stand-in", maxRetries: 0 })
    : new OpenAI();
  const model = process.env["OPENAI_MODEL"] ?? "gpt-5.6-luna";
  const reasoning = process.env["CHAT_REASONING"] === "drop" ? "drop" : "keep";
  log(
    online
      ? `Talking to ${client.baseURL} (${model}).`
      : `OPENAI_API_KEY is not set: talking to the offline stand-in at ${server?.url}.`,
  );
  try {
    const report = await runAgent({ client, model, log, reasoning });
    log("");
    log(`Done: ${report.requests} requests, ${report.toolCalls} tool calls.`);
    log(
      `Compactions: ${report.compactions.threshold} by tool-result summaries, ${report.compactions.llm} by LLM summary, ${report.compactions.failed} failed.`,
    );
    log(`Refused requests: ${server?.refusals.length ?? "n/a (online)"}.`);
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
