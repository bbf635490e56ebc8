import {
  AgentSession,
  type AssistantMessage,
  type CompactionEvent,
  LLMCompactor,
  type LlmClient,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../../src/index.js";

import { readFile } from "./code-reading-task.js";
import { type CompactionCounts, logCompactions } from "./compaction-log.js";

// The code-reading task the provider examples run, and what their offline stand-ins say: one
// task, one tool, whichever SDK carries it.

export { FILES, SYSTEM, TASKS } from "./code-reading-task.js";

/** The one tool, in the words every SDK's declaration takes: its name, description and JSON schema. */
export const READ_FILE = {
  name: "read_file",
  description: "Returns the contents of a file of the repository.",
  schema: {
    type: "object" as const,
    properties: { path: { type: "string", description: "Path such as src/lexer.ts" } },
    required: ["path"],
  },
};

/** What an example's `runAgent` needs: the SDK's client, the model, where the progress goes. */
export interface RunAgentOptions<Client> {
  client: Client;
  model: string;
  /** Where the progress lines go. */
  log: (line: string) => void;
  /** The pretend context window. @default 9000 */
  contextLimit?: number;
  /** Tool-use rounds allowed per task, a guard against a model that never stops. @default 8 */
  maxStepsPerTask?: number;
}

/**
 * The examples' session: cheap first (old tool results give way to their compact summaries),
 * then, if that is not enough, the provider's model summarises the older turns.
 */
export function codeReadingSession(
  contextLimit: number,
  summarizer: LlmClient,
  report: Omit<AgentRunReport, "session">,
  log: (line: string) => void,
): AgentSession {
  return new AgentSession({
    contextLimit,
    compactor: { type: "threshold", config: { threshold: 0.5, keepRecentTurns: 2 } },
    llmCompactor: new LLMCompactor(summarizer, {
      threshold: 0.6,
      keepRecentTurns: 1,
      maxSummaryTokens: 512,
    }),
    onEvent: compactionLogger(report, log),
  });
}

/** Runs one tool call; the compact summary is what threshold compaction keeps of it later. */
export function runTool(call: ToolUseBlock): ToolResultBlock {
  const path = typeof call.input["path"] === "string" ? call.input["path"] : "";
  return { type: "tool_result", toolUseId: call.id, ...readFile(call.name, path) };
}

/** What happened in a run. */
export interface AgentRunReport {
  requests: number;
  toolCalls: number;
  /** Compactions that changed the conversation, by strategy (`threshold`, `llm`), and failures. */
  compactions: CompactionCounts;
  /** The highest context measure seen before a request was sent. */
  peakContextUsed: number;
  /** The session at the end. */
  session: AgentSession;
}

/** A report with nothing counted yet. */
export function emptyReport(): Omit<AgentRunReport, "session"> {
  return {
    requests: 0,
    toolCalls: 0,
    compactions: { threshold: 0, llm: 0, failed: 0 },
    peakContextUsed: 0,
  };
}

/** `used / limit` in tokens and percent. */
export function percent(used: number, limit: number): string {
  return `${used.toLocaleString("en-US")} / ${limit.toLocaleString("en-US")} tokens (${Math.round((used / limit) * 100)}%)`;
}

/** Counts the compactions of a run in `report` and logs each. */
export function compactionLogger(
  report: Omit<AgentRunReport, "session">,
  log: (line: string) => void,
): (event: CompactionEvent) => void {
  return logCompactions(report.compactions, log);
}

/** Paths such as `src/lexer.ts` in a text. */
export const PATH_PATTERN = /\b[\w-]+(?:\/[\w.-]+)+\.\w+\b/g;

/** What the offline stand-ins answer a summary request with: the files read and the user's rules. */
export function offlineSummary(prompt: string): string {
  const files = [...new Set(prompt.match(PATH_PATTERN) ?? [])];
  const rules = [...new Set(prompt.match(/never [^.\n"]*/gi) ?? [])];
  return [
    `Earlier work (${prompt.length.toLocaleString("en-US")} characters condensed).`,
    files.length > 0 ? `Files already read: ${files.join(", ")}.` : "No files read yet.",
    rules.length > 0 ? `User rules still in force: ${rules.join("; ")}.` : "",
  ]
    .filter((line) => line !== "")
    .join(" ");
}

/** What they answer a question about the session with: what the history (summary included) still holds. */
export function offlineRecollection(history: string): string {
  const files = [...new Set(history.match(PATH_PATTERN) ?? [])];
  const rule = history.match(/never [^.\n;"]*/i)?.[0];
  return `So far I have read ${files.length > 0 ? files.join(", ") : "nothing"}; ${rule ? `your rule: ${rule}.` : "I have no rule from you on record."}`;
}

/**
 * One step's end: a reply without calls is logged and ends the turn (`false`); otherwise the
 * calls run and their results join the session, and the turn goes on (`true`).
 */
export function takeStep(
  session: AgentSession,
  reply: { message: AssistantMessage | undefined; calls: ToolUseBlock[] },
  report: Omit<AgentRunReport, "session">,
  log: (line: string) => void,
): boolean {
  if (reply.calls.length === 0) {
    const text = (reply.message?.content ?? [])
      .map((block) => (block.type === "text" ? block.text : ""))
      .join("");
    log(`  ◀ assistant: ${text}`);
    return false;
  }
  for (const call of reply.calls) log(`  → ${call.name}(${JSON.stringify(call.input)})`);
  report.toolCalls += reply.calls.length;
  session.addToolResults(reply.calls.map(runTool));
  return true;
}
