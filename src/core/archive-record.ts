import type { JsonObject, Message, ToolResultBlock } from "./message.js";

/** What a compaction removed or replaced, kept under a recall handle. */
export type ArchiveRecord =
  /** A tool result whose content was replaced (by its compact summary or the notice). */
  | { handle: string; kind: "tool_result"; toolUseId: string; original: ToolResultBlock }
  /** A tool input that was cleared. */
  | { handle: string; kind: "tool_input"; toolUseId: string; original: JsonObject }
  /** Messages folded into a summary, trimmed, or rewritten by a custom compactor. */
  | { handle: string; kind: "messages"; original: Message[] };
