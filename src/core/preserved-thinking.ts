import type { ContentBlock, Message } from "./message.js";
import { type Clock, createMessage, systemClock } from "./message-factory.js";
import { estimateBlockTokens } from "./tokens.js";

/**
 * What keeping a rewritten history valid under preserved thinking cost: the thinking blocks
 * removed after the first change, and the tool exchange closed into text (see
 * {@link keepThinkingValid}).
 */
export interface ThinkingRepair {
  /** Index of the first message that differs from the history before (its length when none). */
  firstChange: number;
  /** `thinking` and `redacted_thinking` blocks removed, whole. */
  thinkingBlocksDropped: number;
  /** Their estimated tokens. */
  thinkingTokensDropped: number;
  /** Whether the open tool exchange at the end was closed by a continuation (see below). */
  toolExchangeClosed: boolean;
}

const isThinking = (block: ContentBlock) =>
  block.type === "thinking" || block.type === "redacted_thinking";

/** Index of the first message of `after` that is not the same object as in `before`. */
function firstDifference(before: readonly Message[], after: readonly Message[]): number {
  const length = Math.min(before.length, after.length);
  for (let index = 0; index < length; index += 1) {
    if (before[index] !== after[index]) return index;
  }
  return length;
}

/** The tool exchange the conversation ends in: a user message answering the assistant message before it. */
function openExchange(conversation: readonly Message[]): number | undefined {
  const answer = conversation.at(-1);
  const call = conversation.at(-2);
  if (answer?.role !== "user" || call?.role !== "assistant") return undefined;
  if (!answer.content.some((block) => block.type === "tool_result")) return undefined;
  if (!call.content.some((block) => block.type === "tool_use")) return undefined;
  return conversation.length - 2;
}

/** What the assistant says in the turn that closes an open tool exchange after a compaction. */
export const CONTINUATION_NOTE = "[Context compacted; continuing the task.]";
/** What the user says to it. */
export const CONTINUATION_REQUEST = "Continue.";

/**
 * The two messages that close an open tool exchange whose assistant message lost its thinking:
 * while thinking is on, the API wants the assistant message a request answers through
 * `tool_result` blocks to start with a thinking block. After a short assistant note and a user
 * message the request answers nothing: the model reads the results and goes on afresh, and the
 * results stay tool results (compactable later like any other).
 */
function continuation(last: Message, clock: Clock): [Message, Message] {
  const base = { sessionId: last.sessionId, turnId: last.turnId, clock };
  return [
    createMessage({
      ...base,
      role: "assistant",
      content: [{ type: "text", text: CONTINUATION_NOTE }],
    }),
    createMessage({
      ...base,
      role: "user",
      content: [{ type: "text", text: CONTINUATION_REQUEST }],
    }),
  ];
}

/**
 * Keeps a rewritten history valid under preserved thinking (Claude Fable 5.1 and later: a
 * thinking block sent back is valid only while `system`, `tools` and everything before it are
 * unchanged). From the first message that differs from `before`, every `thinking` and
 * `redacted_thinking` block goes, whole, none left between (the documented manual fix); an
 * assistant message left empty says so in a text block. When the conversation then ends in a
 * tool exchange whose assistant message lost its thinking, a short assistant note and a user
 * message "Continue." close it. Thinking before the change is untouched, so it stays valid,
 * and the history is append-only again from here. Pure: unchanged messages are shared.
 */
export function keepThinkingValid(
  before: readonly Message[],
  after: readonly Message[],
  clock: Clock = systemClock,
): { conversation: Message[]; repair: ThinkingRepair } {
  const firstChange = firstDifference(before, after);
  const conversation = after.slice();
  const repair: ThinkingRepair = {
    firstChange,
    thinkingBlocksDropped: 0,
    thinkingTokensDropped: 0,
    toolExchangeClosed: false,
  };
  if (firstChange === before.length && firstChange === after.length)
    return { conversation, repair };
  let strippedCall = false;
  const exchange = openExchange(conversation);
  for (let index = firstChange; index < conversation.length; index += 1) {
    const message = conversation[index]!;
    if (!message.content.some(isThinking)) continue;
    const kept = message.content.filter((block) => {
      if (!isThinking(block)) return true;
      repair.thinkingBlocksDropped += 1;
      repair.thinkingTokensDropped += estimateBlockTokens(block);
      return false;
    });
    if (index === exchange) strippedCall = true;
    conversation[index] = {
      ...message,
      content: kept.length > 0 ? kept : [{ type: "text", text: "[thinking omitted]" }],
    } as Message;
  }
  if (strippedCall) {
    conversation.push(...continuation(conversation.at(-1)!, clock));
    repair.toolExchangeClosed = true;
  }
  return { conversation, repair };
}
