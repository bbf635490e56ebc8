import type { Tool } from "@anthropic-ai/sdk/resources/messages";
import type { ArchiveRecord } from "../core/archive-record.js";
import type { ContentBlock, Message } from "../core/message.js";
import type { ToolResultInput } from "../core/tool-result-input.js";

/**
 * The tool that lets the model fetch back what compaction removed: add it to `tools`, and
 * answer its calls with {@link answerRecall}. Placeholders and summaries name their handles
 * (`[recall r7-3f2a]`).
 */
export const RECALL_TOOL = {
  name: "recall_compacted",
  description:
    "Fetches the original content that context compaction removed or replaced. Placeholders and summaries in the conversation name a recall handle such as [recall r7-3f2a]; call this with that handle when you need the exact original (a tool result, a tool input, or earlier messages).",
  input_schema: {
    type: "object",
    properties: {
      handle: { type: "string", description: "The handle, e.g. r7-3f2a, from a [recall …] mark." },
    },
    required: ["handle"],
  },
} satisfies Tool;

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

/**
 * Answers a {@link RECALL_TOOL} call from the session's archive: the original as the tool
 * result, or an error result saying why (an unknown handle, one from another session).
 *
 * @example
 * if (call.name === RECALL_TOOL.name) results.push(await answerRecall(session, call));
 */
export async function answerRecall(
  session: { recall(handle: string): Promise<ArchiveRecord> },
  call: { id: string; input: unknown },
): Promise<ToolResultInput> {
  const handle = (call.input as { handle?: unknown } | null)?.handle;
  try {
    const record = await session.recall(String(handle));
    return { type: "tool_result", tool_use_id: call.id, content: recallText(record) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: "tool_result", tool_use_id: call.id, content: message, is_error: true };
  }
}
