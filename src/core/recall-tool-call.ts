import type { ArchiveRecord } from "./archive-record.js";
import type { ContentBlock, Message } from "./message.js";
import type { ToolResultInput } from "./tool-result-input.js";

/** The name the recall tool has for every provider. */
export const RECALL_TOOL_NAME = "recall_compacted";

/** What the model reads about the recall tool. */
export const RECALL_TOOL_DESCRIPTION =
  "Fetches the original content that context compaction removed or replaced. Placeholders and summaries in the conversation name a recall handle such as [recall r7-3f2a]; call this with that handle when you need the exact original (a tool result, a tool input, or earlier messages).";

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
}

/**
 * Answers a recall call with id `id` and input `input` (`{ handle }`) from the session's
 * archive: the original as the tool result, or an error result saying why (an unknown handle,
 * one from another session).
 */
export async function answerRecallCall(
  session: RecallToolSession,
  id: string,
  input: unknown,
): Promise<ToolResultInput> {
  const handle = (input as { handle?: unknown } | null)?.handle;
  try {
    const record = await session.recall(String(handle));
    return { type: "tool_result", tool_use_id: id, content: recallText(record) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: "tool_result", tool_use_id: id, content: message, is_error: true };
  }
}
