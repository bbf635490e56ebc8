import { isCompactionBlock, isSystemMessage, safeCuts } from "../core/conversation-structure.js";
import { CompactionError } from "../core/errors.js";
import { SUMMARY_DECLINED } from "../core/llm-client.js";
import type { ContentBlock, Message } from "../core/message.js";
import type { CompactionUsage } from "../core/usage.js";
import { fromAnthropicContent } from "./blocks.js";

/** Whether a value is a non-null object (a response, an error, a client). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** What stop reasons of a summary request mean, and what to do (the docs' table). */
export const UNFINISHED_SUMMARY: Readonly<Record<string, string>> = {
  max_tokens: "the summary was cut off: raise maxTokens",
  model_context_window_exceeded:
    "there was no room for the summarization prompt: compact earlier or shorten the instructions",
  tool_use:
    "the model called a tool instead of writing the summary: tell it not to in the instructions",
  refusal: SUMMARY_DECLINED,
  pause_turn: "the turn paused (a server tool ran long): continue without a summary",
};

/** What stop reasons without a summary mean, and what to do. */
const NO_SUMMARY: Readonly<Record<string, string>> = {
  ...UNFINISHED_SUMMARY,
  end_turn: "the call returned no text: continue without a summary",
};

/** The role the API reads a message with: a system message is its own. */
const wireRole = (message: Message) => (isSystemMessage(message) ? "system" : message.role);

/**
 * Where the conversation may be cut: the messages before go into the compaction request, the
 * messages from it on are kept after the block, unchanged. A cut leaves no tool call open,
 * keeps a system message with what it follows, and puts a message of the other role first
 * (else the API merges it into the summary, and its thinking fails); something besides an
 * earlier block must be summarized, and at least the last message kept.
 */
export function validCuts(conversation: readonly Message[]): number[] {
  const safe = safeCuts(conversation);
  const cuts: number[] = [];
  let summarizable = false;
  for (let cut = 1; cut < conversation.length; cut += 1) {
    const last = conversation[cut - 1]!;
    if (!isSystemMessage(last) && !(cut === 1 && isCompactionBlock(last.content[0]))) {
      summarizable = true;
    }
    const first = conversation[cut]!;
    if (!summarizable || !safe[cut] || isSystemMessage(first)) continue;
    if (wireRole(first) === wireRole(last)) continue;
    cuts.push(cut);
  }
  return cuts;
}

/** The block and cost of a compaction response; rejects with `CompactionError` when there is none. */
export function readCompaction(response: unknown): {
  blocks: ContentBlock[];
  usage: CompactionUsage | undefined;
} {
  if (!isObject(response) || !Array.isArray(response["content"])) {
    throw new CompactionError("llm_error", "compaction response has no content array", {
      cause: response,
    });
  }
  const usage = compactionUsage(response["usage"]);
  const stopReason = String(response["stop_reason"]);
  if (response["content"].length === 0) {
    const why = NO_SUMMARY[stopReason] ?? "no summary came back";
    throw new CompactionError(
      "empty_summary",
      `no compaction summary (stop_reason "${stopReason}"): ${why}`,
      { cause: response },
    );
  }
  let blocks: ContentBlock[];
  try {
    blocks = fromAnthropicContent(response["content"]);
  } catch (error) {
    throw new CompactionError("llm_error", `compaction response is malformed: ${describe(error)}`, {
      cause: error,
    });
  }
  const [block] = blocks;
  if (stopReason !== "compaction" || blocks.length !== 1 || !isCompactionBlock(block)) {
    throw new CompactionError(
      "llm_error",
      `expected one compaction block with stop_reason "compaction", got ${blocks.length} block(s) with stop_reason "${stopReason}"`,
      { cause: response },
    );
  }
  const content = block.block["content"];
  if (typeof content !== "string" || content.trim() === "") {
    throw new CompactionError("empty_summary", "the compaction block holds no summary", {
      cause: response,
    });
  }
  return { blocks, usage };
}

/** The cost of the `compaction` entries of `usage.iterations` (top-level usage is 0). */
function compactionUsage(usage: unknown): CompactionUsage | undefined {
  if (!isObject(usage) || !Array.isArray(usage["iterations"])) return undefined;
  const entries = usage["iterations"].filter(
    (entry): entry is Record<string, unknown> => isObject(entry) && entry["type"] === "compaction",
  );
  if (entries.length === 0) return undefined;
  const sum = (field: string) =>
    entries.reduce(
      (total, entry) => total + (typeof entry[field] === "number" ? (entry[field] as number) : 0),
      0,
    );
  return {
    inputTokens: sum("input_tokens"),
    outputTokens: sum("output_tokens"),
    cacheCreationInputTokens: sum("cache_creation_input_tokens"),
    cacheReadInputTokens: sum("cache_read_input_tokens"),
  };
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
