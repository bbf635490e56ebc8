import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import type { AgentSession } from "../../src/session/agent-session.js";
import { roughTokens } from "./messages-api-server.js";

/**
 * The coding agent the Anthropic suites run against the loopback Messages API: its system
 * prompt, its one tool, the scripted model that calls it, and the files it reads.
 */

/** The agent's system prompt. */
export const SYSTEM = "You are a coding agent. Use the tools.";

/** The agent's one tool. */
export const READ_FILE_TOOL: Tool = {
  name: "read_file",
  description: "Reads a file",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
};

/** A second tool, for suites that need two. */
export const REMEMBER_TOOL: Tool = {
  name: "remember",
  description: "Keeps a note",
  input_schema: { type: "object", properties: { note: { type: "string" } } },
};

/** The agent's tools. */
export const TOOLS: Tool[] = [READ_FILE_TOOL];

interface ScriptedMessage {
  role: string;
  content: unknown;
}

/** How {@link toolLoopScript} plays the model. */
export interface ToolLoopScriptOptions {
  /**
   * Whether to answer (end the turn) instead of calling the tool again, asked when the last
   * message holds tool results; `request` counts the requests so far, this one included.
   */
  endsTurn: (messages: readonly ScriptedMessage[], request: number) => boolean;
  /** The path the `calls`-th tool call reads. */
  path: (calls: number) => string;
}

/**
 * The scripted model of the loop tests: a `read_file` call per request until `endsTurn` says
 * to answer; its usage is the prompt's rough size (system, tools and messages) and 60 output
 * tokens.
 */
export function toolLoopScript({ endsTurn, path }: ToolLoopScriptOptions) {
  let calls = 0;
  let requests = 0;
  return (request: { body: unknown }) => {
    const body = request.body as { messages: ScriptedMessage[] };
    const last = body.messages.at(-1);
    const lastIsResults =
      Array.isArray(last?.content) &&
      (last.content as { type: string }[]).some((block) => block.type === "tool_result");
    requests += 1;
    const prompt = roughTokens({ system: SYSTEM, tools: TOOLS, messages: body.messages });
    const usage = { input_tokens: prompt, output_tokens: 60 };
    if (lastIsResults && endsTurn(body.messages, requests)) {
      return { type: "message" as const, text: "Done with this step.", usage };
    }
    calls += 1;
    return {
      type: "message" as const,
      content: [
        { type: "text", text: `Reading file ${calls}.` },
        { type: "tool_use", id: `toolu_${calls}`, name: "read_file", input: { path: path(calls) } },
      ],
      stopReason: "tool_use",
      usage,
    };
  };
}

/** What `read_file` returns for tool use `id` at loop step `step`: 2–8 KB of source. */
export function toolOutput(id: string, step: number): string {
  return `// ${id}\n${"export const value = 1;\n".repeat(80 + (step % 5) * 60)}`;
}

/**
 * The agent's side of loop step `step` after `reply` was appended: the results of its tool calls
 * ({@link toolOutput}), or, when it answered, the user's next request.
 */
export function answerReply(
  session: AgentSession,
  reply: { content: readonly { type: string }[] },
  step: number,
): void {
  const uses = reply.content.filter(
    (block): block is { type: "tool_use"; id: string } => block.type === "tool_use",
  );
  if (uses.length > 0) {
    session.addToolResults(
      uses.map((use) => ({
        type: "tool_result",
        tool_use_id: use.id,
        content: toolOutput(use.id, step),
      })),
    );
  } else {
    session.addUserText(`Next step ${step}: keep going. Never edit generated files.`);
  }
}
