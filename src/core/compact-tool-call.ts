import type { ToolResultInput } from "./tool-result-input.js";

/** The name the compact tool has for every provider. */
export const COMPACT_TOOL_NAME = "compact_context";

/** The longest `notes` a compact call may carry (a longer one is refused, nothing scheduled). */
export const MAX_COMPACT_NOTES_CHARS = 8_000;

/** What the model reads about the compact tool: when to call it, and when not. */
export const COMPACT_TOOL_DESCRIPTION = [
  "Compacts your context: before your next request, the earlier part of this conversation is replaced by a summary, and the most recent turns stay word for word.",
  "Call it at a natural boundary, when what came before is no longer needed verbatim: a sub-task is finished and verified, a long exploration (searching, reading many files, trying options) has reached its conclusion, or you are about to move to a different part of the task.",
  "Do not call it in the middle of a derivation, a multi-step edit or a debugging chain, or while you still need exact details from earlier output (file contents, error messages, numbers, code) that you have not used or written down yet: finish that step first.",
  "Put in `notes` what the summary must keep: decisions made, what is done and what is left, open questions, and the exact names, paths and values you will need next.",
].join(" ");

/** The compact tool's input, as a JSON schema (the same for every provider). */
export const COMPACT_TOOL_INPUT_SCHEMA = {
  type: "object",
  properties: {
    notes: {
      type: "string",
      description:
        "What the summary must keep: decisions, progress, open questions, exact names, paths and values still needed.",
    },
  },
  additionalProperties: false,
} as const;

/**
 * The compact tool's name, description and a fresh copy of its input schema, for each provider
 * to put in its own tool shape (a caller editing one tool's schema leaves the others alone).
 */
export function compactToolSpec() {
  return {
    name: COMPACT_TOOL_NAME,
    description: COMPACT_TOOL_DESCRIPTION,
    schema: {
      ...COMPACT_TOOL_INPUT_SCHEMA,
      properties: { ...COMPACT_TOOL_INPUT_SCHEMA.properties },
    },
  };
}

/** What answering a compact call needs of a session (`AgentSession` and `StoredSession` fit). */
export interface CompactToolSession {
  requestCompaction(options?: { instructions?: string }): void;
}

const SCHEDULED =
  "Compaction scheduled: it happens before your next request. The earlier conversation will be a summary (with your notes); the most recent turns stay as they are. Continue with the next step.";

const errorResult = (id: string, content: string): ToolResultInput => ({
  type: "tool_result",
  tool_use_id: id,
  content: `${content} No compaction was scheduled.`,
  is_error: true,
});

/**
 * Answers one compact call: asks the session for a compaction at its next `maybeCompact`,
 * `notes` going to the summarizer as instructions, and returns the call's tool result. Bad
 * input (notes not a string, or too long) gets an error result and schedules nothing.
 */
export function answerCompactCall(
  session: CompactToolSession,
  id: string,
  input: unknown,
): ToolResultInput {
  const notes =
    typeof input === "object" && input !== null ? (input as { notes?: unknown }).notes : undefined;
  if (notes !== undefined && typeof notes !== "string") {
    return errorResult(id, "`notes` must be a string.");
  }
  if (notes !== undefined && notes.length > MAX_COMPACT_NOTES_CHARS) {
    return errorResult(id, `\`notes\` must be at most ${MAX_COMPACT_NOTES_CHARS} characters.`);
  }
  try {
    session.requestCompaction(
      notes === undefined || notes.trim() === "" ? {} : { instructions: notes },
    );
  } catch (error) {
    return errorResult(id, error instanceof Error ? error.message : String(error));
  }
  return { type: "tool_result", tool_use_id: id, content: SCHEDULED };
}
