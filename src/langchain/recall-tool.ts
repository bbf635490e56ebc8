import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { ValidationError } from "../core/errors.js";
import { recallAnswer, recallToolSpec } from "../core/recall-tool-call.js";
import {
  type RecallSource,
  type RecallToolOptions,
  recallSourceOf,
} from "../session/recall-source.js";
import { threadIdOf } from "./thread-id.js";

export type { RecallSource, RecallToolOptions };

/**
 * The tool that fetches back what compaction removed, from what `sourceOf` gives for the thread
 * it is called in (the middleware's: each thread's session): its answer is a page of the
 * original (a tool result, a tool input, earlier messages) as text, at most an eighth of the
 * window; a bad handle or page is an error the model reads (the agent's tool node makes it an
 * error `ToolMessage`).
 */
export function threadRecallTool(
  sourceOf: (threadId: string) => RecallSource | undefined,
): StructuredToolInterface {
  return tool(async (input: unknown, config) => {
    const { handle, page } = (input ?? {}) as { handle?: unknown; page?: unknown };
    const threadId = threadIdOf(config?.configurable);
    const source = sourceOf(threadId);
    if (source === undefined) {
      throw new ValidationError("recall", [
        {
          path: ["handle"],
          message: `no compacted content in thread ${JSON.stringify(threadId)}`,
        },
      ]);
    }
    return recallAnswer(source, String(handle), page);
  }, recallToolSpec()) as unknown as StructuredToolInterface;
}

/**
 * The recall tool for a loop of your own: lets the model fetch back what
 * `compactLangChainMessages` removed, from the `archive` it kept it in (under its `sessionId`,
 * `"stateless"` by default), or from anything with a `recall` (an `AgentSession`). Bind it with
 * your tools (`model.bindTools([...tools, recallTool({ archive })])`); placeholders name their
 * handles (`[recall r7-3f2a]`).
 *
 * @example
 * const archive = new MemoryArchive();
 * const { messages: compacted } = await compactLangChainMessages(messages, { contextLimit, archive });
 * const reply = await model.bindTools([...tools, recallTool({ archive })]).invoke(compacted);
 * @throws {ValidationError} when the options are invalid (at once).
 */
export function recallTool(source: RecallToolOptions | RecallSource): StructuredToolInterface {
  const recaller = recallSourceOf(source);
  return threadRecallTool(() => recaller);
}
