import type { ArchiveRecord } from "./archive-record.js";
import type { ContentBlock, Message } from "./message.js";

/** The name of the tool that fetches back what compaction removed, in every adapter. */
export const RECALL_TOOL_NAME = "recall_compacted";

/** What the recall tool tells the model. */
export const RECALL_TOOL_DESCRIPTION =
  "Fetches the original content that context compaction removed or replaced. Placeholders and summaries in the conversation name a recall handle such as [recall r7-3f2a]; call this with that handle when you need the exact original (a tool result, a tool input, or earlier messages).";

/** What the recall tool's `handle` argument is. */
export const RECALL_HANDLE_DESCRIPTION = "The handle, e.g. r7-3f2a, from a [recall …] mark.";

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
