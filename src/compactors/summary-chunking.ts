import { linkAbort } from "../core/abort.js";
import type { Message } from "../core/message.js";
import { tokensToChars } from "../core/tokens.js";
import {
  buildChunkPrompt,
  buildCombinePrompt,
  buildSummaryPrompt,
  type SummaryPromptParts,
} from "./prompt.js";
import {
  formatTranscript,
  type Line,
  linesLength,
  transcriptLines,
  truncate,
} from "./transcript.js";

/**
 * What happens when the part to summarize does not fit one summarization request:
 * `chunk` summarizes it in parts that each fit, then combines the parts' summaries (map-reduce);
 * `truncate` tightens per-item caps, then drops the oldest items, so one request fits.
 */
export type SummaryOverflow = "chunk" | "truncate";

/** Sends one summarization request; rejects with `CompactionError`. */
export type SummaryRequest = (prompt: string, signal: AbortSignal | undefined) => Promise<string>;

/** What {@link summarizeTranscript} needs. */
export interface SummarizationInput extends SummaryPromptParts {
  /** The messages to summarize (the compacted part). */
  messages: readonly Message[];
  /** Compact summaries of tool results, by tool use id. */
  summaries: ReadonlyMap<string, string>;
  /** The system prompt every request carries. */
  system: string;
  /** Tokens (about 4 characters a token) one request may take: system prompt, prompt and transcript. */
  requestBudgetTokens: number;
  maxToolInputChars: number;
  maxToolResultChars: number;
  overflow: SummaryOverflow;
  /** Requests in flight at once while summarizing parts. @default 4 */
  concurrency?: number;
}

/** The least room a transcript gets, even when the system prompt leaves less. */
const MIN_TRANSCRIPT_CHARS = 500;
/** Characters the `<summary part="N">` framing adds around one partial summary, at most. */
const SUMMARY_FRAME_CHARS = 48;
/** What `truncate` adds beyond its limit, at most. */
const TRUNCATION_MARK_CHARS = 32;

/** Cuts one line to `limit` characters, keeping a tool output's closing tag. */
function fitLine(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const closing = "\n</tool_output>";
  const keepClosing = text.endsWith(closing);
  const room = Math.max(0, limit - TRUNCATION_MARK_CHARS - (keepClosing ? closing.length : 0));
  return `${truncate(text, room)}${keepClosing ? closing : ""}`;
}

/** Packs lines, in order, into chunks of at most `limit` characters each. */
export function packLines(lines: readonly Line[], limit: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let length = 0;
  for (const line of lines) {
    const text = fitLine(line.text, limit);
    if (current.length > 0 && length + text.length + 1 > limit) {
      chunks.push(current.join("\n"));
      current = [];
      length = 0;
    }
    current.push(text);
    length += text.length + 1;
  }
  if (current.length > 0) chunks.push(current.join("\n"));
  return chunks;
}

/** Groups summaries, in order, so each group's framed length fits `limit`. */
function groupSummaries(summaries: readonly string[], limit: number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let length = 0;
  for (const summary of summaries) {
    const size = summary.length + SUMMARY_FRAME_CHARS;
    if (current.length > 0 && length + size > limit) {
      groups.push(current);
      current = [];
      length = 0;
    }
    current.push(summary);
    length += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Runs `task` over `items` with at most `limit` in flight; the first failure cancels the rest. */
async function mapLimited<T>(
  items: readonly T[],
  limit: number,
  outer: AbortSignal | undefined,
  task: (item: T, index: number, signal: AbortSignal) => Promise<string>,
): Promise<string[]> {
  // The tasks' signal: aborted when the caller aborts or when one task fails.
  const link = linkAbort(outer);
  const results: string[] = new Array<string>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await task(items[index]!, index, link.signal);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          link.abort(error);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  } finally {
    link.release();
  }
  if (failure !== undefined) throw failure.error;
  return results;
}

/**
 * Summarizes messages so that every request (system prompt + prompt, in tokens by
 * 4 characters a token) stays within `requestBudgetTokens`: in one request when the transcript fits, else in parts that
 * each fit, whose summaries are then combined, in rounds if they do not fit one request
 * either (map-reduce). With `overflow: "truncate"` it drops the oldest items instead.
 */
export async function summarizeTranscript(
  input: SummarizationInput,
  request: SummaryRequest,
  signal?: AbortSignal,
): Promise<string> {
  const requestChars = tokensToChars(input.requestBudgetTokens);
  const parts: SummaryPromptParts = {
    userRequests: input.userRequests,
    instructions:
      input.instructions === undefined
        ? undefined
        : truncate(input.instructions.trim(), Math.max(200, Math.floor(requestChars / 8))),
  };
  const room = (frame: string) =>
    Math.max(MIN_TRANSCRIPT_CHARS, requestChars - input.system.length - frame.length - 2);
  const caps = {
    maxToolInputChars: input.maxToolInputChars,
    maxToolResultChars: input.maxToolResultChars,
  };

  const singleRoom = room(buildSummaryPrompt({ ...parts, transcript: "" }));
  const lines = transcriptLines(input.messages, input.summaries, caps);
  if (input.overflow === "truncate" || linesLength(lines) <= singleRoom) {
    const transcript = formatTranscript(input.messages, input.summaries, {
      ...caps,
      maxChars: singleRoom,
    });
    return request(buildSummaryPrompt({ ...parts, transcript }), signal);
  }

  const concurrency = input.concurrency ?? 4;
  const chunkRoom = room(
    buildChunkPrompt({ ...parts, transcript: "", part: 999_999, parts: 999_999 }),
  );
  const chunks = packLines(lines, chunkRoom);
  let partials = await mapLimited(chunks, concurrency, signal, (transcript, index, inner) =>
    request(
      buildChunkPrompt({ ...parts, transcript, part: index + 1, parts: chunks.length }),
      inner,
    ),
  );

  const combineRoom = room(buildCombinePrompt({ ...parts, summaries: [], final: false }));
  // Each partial fits half the room, so every group but the last holds two or more: each round
  // shrinks the list, and the last round is one request.
  const partialCap = Math.floor(combineRoom / 2) - SUMMARY_FRAME_CHARS - TRUNCATION_MARK_CHARS;
  for (;;) {
    const groups = groupSummaries(
      partials.map((partial) => truncate(partial, Math.max(1, partialCap))),
      combineRoom,
    );
    if (groups.length === 1) {
      return request(buildCombinePrompt({ ...parts, summaries: groups[0]!, final: true }), signal);
    }
    partials = await mapLimited(groups, concurrency, signal, (summaries, _index, inner) =>
      request(buildCombinePrompt({ ...parts, summaries, final: false }), inner),
    );
  }
}
