import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { charsToTokens } from "../core/tokens.js";
import { headOf } from "../internal/whole-characters.js";
import type { FoldPlan } from "./fold-plan.js";

/** How many characters of the first kept message the instruction quotes to mark the cut. */
const QUOTE_CHARS = 160;

/** What {@link conversationSummaryRequest} needs. */
export interface ConversationSummaryInput {
  /** The conversation as the agent last sent it (the session's, before this compaction). */
  conversation: readonly Message[];
  /** Where the fold ends: the messages from `plan.cut` on (and `plan.keepIndex`) stay. */
  plan: FoldPlan;
  /** The summarizer's system prompt, which becomes the instruction's body. */
  system: string;
  /** Extra instructions for this summary. */
  instructions: string | undefined;
  /** Tokens the summary may take. */
  maxSummaryTokens: number;
  /** The window, when the session passed it. */
  contextLimit: number | undefined;
  /** The context the conversation takes (messages, system prompt and tools), when known. */
  contextUsed: number | undefined;
  /** The request budget of a transcript summary, used as the window when none is known. */
  requestBudgetTokens: number;
}

/** A summary request that sends the conversation itself: its messages and the instruction. */
export interface ConversationSummaryRequest {
  messages: readonly Message[];
  instruction: string;
}

/** Whether a message is an assistant message whose tool calls have no results yet (an open tail). */
function isOpenToolCall(message: Message | undefined): boolean {
  return (
    message?.role === "assistant" && message.content.some((block) => block.type === "tool_use")
  );
}

/** Where the kept part starts, in words the summarizer can find in the conversation above. */
function keptPartStart(message: Message | undefined): string {
  if (message === undefined) return "";
  for (const block of message.content) {
    if (block.type === "text" && block.text.trim() !== "") {
      const text = headOf(block.text.trim().replace(/\s+/g, " "), QUOTE_CHARS);
      return `the ${message.role} message that begins "${text}"`;
    }
    if (block.type === "tool_result") return `the result of tool call ${block.toolUseId}`;
    if (block.type === "tool_use") return `the assistant's call of ${block.name} (${block.id})`;
  }
  return `the ${message.role} message after the last one you summarize`;
}

/**
 * Where the request ends: before the latest assistant message when the fold ends before it.
 * What comes from there on (the model's last reply and what was appended since) was not in the
 * agent's last request, so it would be cache writes, and it stays verbatim after the summary
 * anyway. Otherwise the whole conversation, an open tool call at its end left out (a message
 * cannot follow it).
 */
function requestEnd(conversation: readonly Message[], cut: number): number {
  for (let index = conversation.length - 1; index > 0; index -= 1) {
    if (conversation[index]!.role !== "assistant") continue;
    if (index >= cut) return index;
    break;
  }
  const end = conversation.length;
  return isOpenToolCall(conversation[end - 1]) ? end - 1 : end;
}

/**
 * The summary request that reads from the prompt cache: the conversation exactly as the agent
 * last sent it (up to its latest request, when the fold ends before that), with the instruction
 * appended as the final user message. `undefined` when it would not fit the window with the
 * summary (then the transcript path runs).
 */
export function conversationSummaryRequest(
  input: ConversationSummaryInput,
): ConversationSummaryRequest | undefined {
  const end = requestEnd(input.conversation, input.plan.cut);
  const messages = input.conversation.slice(0, end);
  if (messages.length === 0) return undefined;
  const kept = input.plan.cut < end ? input.conversation[input.plan.cut] : undefined;
  const instruction = [
    "[Summary request from the context manager, not from the user] Stop the task for a moment and write the handoff summary described below. Do not call any tool: answer with the summary text alone.",
    kept === undefined
      ? "Summarize the whole conversation above."
      : `Summarize the conversation above up to ${keptPartStart(kept)}: from there on it stays word for word after your summary, so cover it only as far as the summary needs it.`,
    input.system,
    ...(input.instructions === undefined || input.instructions.trim() === ""
      ? []
      : [`Additional instructions for this summary:\n${input.instructions.trim()}`]),
  ].join("\n\n");
  const window = input.contextLimit ?? input.requestBudgetTokens;
  const used = input.contextUsed ?? estimateTokens(messages);
  if (used + charsToTokens(instruction.length) + input.maxSummaryTokens > window) return undefined;
  return { messages, instruction };
}
