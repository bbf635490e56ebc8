import { type Span, trace } from "@opentelemetry/api";
import { COMPACTION_BLOCK_TYPE } from "../core/message.js";
import { isTrimNoticeText, SUMMARY_PREFIX } from "../core/summary-format.js";
import { GEN_AI_ATTRIBUTES } from "./attributes.js";

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === "object" && value !== null;

/**
 * Whether a text is what the library wrote in place of earlier messages: a summary, or the
 * notice of messages removed (the default's drop, the last resort), its first line alone or
 * leading what it keeps (a client that joins it to the request keeps it first).
 */
const isCompactionText = (text: unknown): boolean =>
  typeof text === "string" && (text.startsWith(SUMMARY_PREFIX) || isTrimNoticeText(text));

/** The text part types of the wire formats: ours and Anthropic's, the AI SDK's, OpenAI's input and output. */
const TEXT_TYPES: ReadonlySet<unknown> = new Set(["text", "input_text", "output_text"]);

/** Whether a block is a compaction: the API's `compaction` block (ours wraps it), a summary or a notice. */
function isCompactionBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
  if (block["type"] === COMPACTION_BLOCK_TYPE) return true;
  if (block["type"] === "opaque" && isObject(block["block"])) {
    return block["block"]["type"] === COMPACTION_BLOCK_TYPE;
  }
  return TEXT_TYPES.has(block["type"]) && isCompactionText(block["text"]);
}

/** Whether a message is a compaction's: the summary message (its turn or its text) or a compaction block. */
function isCompactionMessage(message: unknown): boolean {
  if (!isObject(message)) return false;
  if (message["type"] === COMPACTION_BLOCK_TYPE) return true; // an OpenAI Responses compaction item
  const turn = message["turnId"];
  if (isObject(turn) && turn["owner"] === "u" && turn["number"] === 0) return true;
  const content = message["content"];
  if (typeof content === "string") return isCompactionText(content);
  // Every block: a wire message may join the summary to the messages of its role around it.
  if (Array.isArray(content)) return content.some(isCompactionBlock);
  // A Gemini content: its text parts have no type.
  const parts = message["parts"];
  return Array.isArray(parts) && parts.some(isSummaryPart);
}

/** Whether a Gemini part is a summary's or a notice's text. */
function isSummaryPart(part: unknown): boolean {
  return isObject(part) && isCompactionText(part["text"]);
}

/**
 * Whether a request's messages hold a compaction: the summary message a summarizing compactor
 * wrote, the notice of messages removed (the default compactor's drop, the last resort), or a
 * `compaction` block. Reads the session's messages or the wire messages
 * (`toAnthropicMessages`, the AI SDK's, `toResponsesInput`'s items: a summary's `input_text`
 * part, a `compaction` item; `toChatMessages`', `toLangChainMessages`' and `toGeminiContents`'
 * messages: a summary's text part).
 */
export function holdsCompaction(messages: readonly unknown[]): boolean {
  for (const message of messages) {
    if (isCompactionMessage(message)) return true;
  }
  return false;
}

/**
 * Sets `gen_ai.conversation.compacted = true` on the app's own inference span (by default the
 * active span) when the request's messages hold a compaction, and never sets `false`, as the
 * GenAI conventions ask. Returns whether it set the attribute. Pass the span: a span is the
 * active one only under a registered context manager (the Node SDK registers one; a bare
 * tracer provider does not), and without one there is none to mark.
 *
 * @example
 * const messages = toAnthropicMessages(session.messages);
 * await tracer.startActiveSpan("chat claude-sonnet-5-5", async (span) => {
 *   markCompactedConversation(messages, span);
 *   // … the request …
 *   span.end();
 * });
 */
export function markCompactedConversation(
  messages: readonly unknown[],
  span: Span | undefined = trace.getActiveSpan(),
): boolean {
  if (span === undefined || !span.isRecording() || !holdsCompaction(messages)) return false;
  span.setAttribute(GEN_AI_ATTRIBUTES.CONVERSATION_COMPACTED, true);
  return true;
}
