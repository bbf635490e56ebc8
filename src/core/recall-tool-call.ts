import type { ArchiveRecord } from "./archive-record.js";
import type { ContentBlock, Message } from "./message.js";
import { recallPage, recallPageTokens } from "./recall-page.js";
import type { ToolResultInput } from "./tool-result-input.js";

/** The name the recall tool has for every provider. */
export const RECALL_TOOL_NAME = "recall_compacted";

/** What the model reads about the recall tool. */
export const RECALL_TOOL_DESCRIPTION =
  "Fetches the original content that context compaction removed or replaced. Placeholders and summaries in the conversation name a recall handle such as [recall r7-3f2a]; call this with that handle when you need the exact original (a tool result, a tool input, or earlier messages). A long original comes in pages: the answer ends saying which page it is and how to ask for the next.";

/**
 * The recall tool's name, description and a fresh copy of its input schema, for each provider
 * to put in its own tool shape.
 */
export function recallToolSpec() {
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_TOOL_DESCRIPTION,
    schema: {
      type: "object" as const,
      properties: {
        handle: {
          type: "string" as const,
          description: "The handle, e.g. r7-3f2a, from a [recall …] mark.",
        },
        page: {
          type: "integer" as const,
          minimum: 1,
          description: "Which page of a long original, from 1 (the default).",
        },
      },
      required: ["handle"],
    },
  };
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "tool_use":
      return `[tool call ${block.name} ${JSON.stringify(block.input)}]`;
    case "tool_result":
      return `[tool result ${block.toolUseId}${block.isError ? " (error)" : ""}] ${
        typeof block.content === "string"
          ? block.content
          : block.content
              .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
              .join("\n")
      }`;
    case "thinking":
    case "redacted_thinking":
      return "";
    default:
      return `[${block.type}]`;
  }
}

/** A record as text the model can read. */
export function recallText(record: ArchiveRecord): string {
  switch (record.kind) {
    case "tool_result":
      return blockText(record.original);
    case "tool_input":
      return `[tool input of ${record.toolUseId}] ${JSON.stringify(record.original)}`;
    case "messages":
      return record.original
        .map(
          (message: Message) =>
            `${message.role}: ${message.content
              .map(blockText)
              .filter((text) => text !== "")
              .join("\n")}`,
        )
        .join("\n\n");
  }
}

/** What answering a recall call needs of a session (`AgentSession` and `StoredSession` fit). */
export interface RecallToolSession {
  recall(handle: string): Promise<ArchiveRecord>;
  /** The window, which sizes a page of the answer (an eighth of it). @default 4,000-token pages */
  readonly contextLimit?: number;
}

/**
 * The answer to a recall of `handle` at `page`: one page of the record's text, at most an
 * eighth of the window, ending with how to ask for the next page when there are several.
 * @throws {ValidationError} at `page` when it is not a page of the record.
 */
export async function recallAnswer(
  session: RecallToolSession,
  handle: string,
  page: unknown,
): Promise<string> {
  const text = recallText(await session.recall(handle));
  return recallPage(text, {
    handle,
    page,
    pageTokens: recallPageTokens(session.contextLimit),
    toolName: RECALL_TOOL_NAME,
  });
}

/**
 * Answers a recall call with id `id` and input `input` (`{ handle, page? }`) from the session's
 * archive: a page of the original as the tool result ({@link recallAnswer}), or an error result
 * saying why (an unknown handle, one from another session, a page past the last).
 */
export async function answerRecallCall(
  session: RecallToolSession,
  id: string,
  input: unknown,
): Promise<ToolResultInput> {
  const { handle, page } = (input ?? {}) as { handle?: unknown; page?: unknown };
  try {
    const content = await recallAnswer(session, String(handle), page);
    return { type: "tool_result", tool_use_id: id, content };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: "tool_result", tool_use_id: id, content: message, is_error: true };
  }
}
