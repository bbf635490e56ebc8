import { type BaseMessage, tool } from "langchain";
import * as z from "zod";

export { AnthropicLikeModel } from "../../examples/support/offline-langchain-claude.js";

/** A few KB of a file's text, different for every path. */
export function fileText(path: string, size = 3_000): string {
  const line = `// ${path}: export function handler(request) { return respond(request); }\n`;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

/** The agent's tool: reads a file (its text is {@link fileText}). */
export const readFileTool = tool(async ({ path }: { path: string }) => fileText(path), {
  name: "read_file",
  description: "Reads a file of the repository",
  schema: z.object({ path: z.string() }),
});

/**
 * What breaks tool pairing in LangChain messages: a tool message that does not answer a call
 * of the AI message before it (only tool messages between), and calls left unanswered before
 * another message. Empty when every call has its result where it must.
 */
export function pairingProblems(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  messages.forEach((message, index) => {
    if (message.type === "tool") {
      const id = (message as unknown as { tool_call_id: string }).tool_call_id;
      if (!open.delete(id)) problems.push(`${index}: tool message ${id} answers no open call`);
      return;
    }
    if (open.size > 0) problems.push(`${index}: calls ${[...open].join(", ")} left unanswered`);
    const calls = (message as unknown as { tool_calls?: { id: string }[] }).tool_calls ?? [];
    open = new Set(message.type === "ai" ? calls.map((call) => call.id) : []);
  });
  return problems;
}
