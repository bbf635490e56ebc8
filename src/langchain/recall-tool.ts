import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { ValidationError } from "../core/errors.js";
import { recallAnswer, recallToolSpec } from "../core/recall-tool-call.js";
import type { AgentSession } from "../session/agent-session.js";
import { threadIdOf } from "./thread-id.js";

/**
 * The tool that fetches back what compaction removed, for the thread it is called in: its
 * answer is a page of the original (a tool result, a tool input, earlier messages) as text, at
 * most an eighth of the window; a bad handle or page is an error the model reads (the agent's
 * tool node makes it an error `ToolMessage`).
 */
export function recallTool(
  sessionOf: (threadId: string) => AgentSession | undefined,
): StructuredToolInterface {
  return tool(async (input: unknown, config) => {
    const { handle, page } = (input ?? {}) as { handle?: unknown; page?: unknown };
    const threadId = threadIdOf(config?.configurable);
    const session = sessionOf(threadId);
    if (session === undefined) {
      throw new ValidationError("recall", [
        {
          path: ["handle"],
          message: `no compacted content in thread ${JSON.stringify(threadId)}`,
        },
      ]);
    }
    return recallAnswer(session, String(handle), page);
  }, recallToolSpec()) as unknown as StructuredToolInterface;
}
