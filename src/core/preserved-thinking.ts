import type { ContentBlock, JsonObject, Message, TextBlock } from "./message.js";
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
  /** Whether the open tool exchange at the end was written out as text (see below). */
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

function describeInput(input: JsonObject): string {
  const json = JSON.stringify(input);
  return json.length > 2000 ? `${json.slice(0, 2000)}…` : json;
}

/**
 * Writes the open tool exchange at the end out as text: the calls in the assistant message,
 * the results in the user message, each result beside its call's name. Needed when its
 * assistant message lost its thinking: while thinking is on, the API wants the assistant
 * message a request continues through `tool_result` blocks to start with a thinking block.
 * Written as text, the request is a new user message the model answers afresh.
 */
function closeExchange(call: Message, answer: Message): [Message, Message] {
  const names = new Map<string, string>();
  const callContent: ContentBlock[] = [];
  for (const block of call.content) {
    if (block.type !== "tool_use") {
      callContent.push(block);
      continue;
    }
    names.set(block.id, block.name);
    callContent.push({
      type: "text",
      text: `[Called tool ${block.name} (id ${block.id}) with input ${describeInput(block.input)}]`,
    });
  }
  const answerContent: ContentBlock[] = [];
  for (const block of answer.content) {
    if (block.type !== "tool_result") {
      answerContent.push(block);
      continue;
    }
    const label = `[Result of tool ${names.get(block.toolUseId) ?? "call"} (id ${block.toolUseId})${block.isError ? ", an error" : ""}]:`;
    if (typeof block.content === "string") {
      answerContent.push({ type: "text", text: `${label} ${block.content}` });
      continue;
    }
    answerContent.push({ type: "text", text: label } satisfies TextBlock);
    for (const part of block.content) answerContent.push(part);
  }
  return [
    { ...call, content: callContent } as Message,
    { ...answer, content: answerContent } as Message,
  ];
}

/**
 * Keeps a rewritten history valid under preserved thinking (Claude Fable 5.1 and later: a
 * thinking block sent back is valid only while `system`, `tools` and everything before it are
 * unchanged). From the first message that differs from `before`, every `thinking` and
 * `redacted_thinking` block goes, whole, none left between (the documented manual fix); an
 * assistant message left empty says so in a text block. When the conversation then ends in a
 * tool exchange whose assistant message lost its thinking, that exchange is written out as
 * text. Thinking before the change is untouched, so it stays valid, and the history is
 * append-only again from here. Pure: unchanged messages are shared.
 */
export function keepThinkingValid(
  before: readonly Message[],
  after: readonly Message[],
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
  if (strippedCall && exchange !== undefined) {
    const [call, answer] = closeExchange(conversation[exchange]!, conversation[exchange + 1]!);
    conversation[exchange] = call;
    conversation[exchange + 1] = answer;
    repair.toolExchangeClosed = true;
  }
  return { conversation, repair };
}
