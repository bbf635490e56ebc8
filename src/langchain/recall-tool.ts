import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { ValidationError } from "../core/errors.js";
import { recallText, recallToolSpec } from "../core/recall-tool-call.js";
import type { AgentSession } from "../session/agent-session.js";
import { threadIdOf } from "./thread-id.js";

/**
 * The tool that fetches back what compaction removed, for the thread it is called in: its
 * answer is the original (a tool result, a tool input, earlier messages) as text; a bad handle
 * is an error the model reads (the agent's tool node makes it an error `ToolMessage`).
 */
export function recallTool(
  sessionOf: (threadId: string) => AgentSession | undefined,
): StructuredToolInterface {
  return tool(async (input: unknown, config) => {
    const handle = (input as { handle?: unknown } | null)?.handle;
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
    return recallText(await session.recall(String(handle)));
  }, recallToolSpec()) as unknown as StructuredToolInterface;
}
