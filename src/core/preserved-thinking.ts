import {
  holdsResultsOnly,
  isSystemMessage,
  startsWithCompaction,
} from "./conversation-structure.js";
import type { ContentBlock, Message } from "./message.js";
import { type Clock, createMessage, systemClock } from "./message-factory.js";
import { estimateBlockTokens } from "./tokens.js";

/**
 * What keeping a rewritten history valid under preserved thinking cost: the thinking blocks
 * removed after the first change, and the tool exchange closed into text (see
 * {@link keepThinkingValid}).
 */
export interface ThinkingRepair {
  /**
   * Index of the first message whose thinking an edit made stale: the first that differs from
   * the history before, or after a new leading `compaction` block the first that is not kept
   * unchanged (its length when none).
   */
  firstChange: number;
  /** `thinking` and `redacted_thinking` blocks removed, whole. */
  thinkingBlocksDropped: number;
  /** Their estimated tokens. */
  thinkingTokensDropped: number;
  /** Whether the open tool exchange at the end was closed by a continuation (see below). */
  toolExchangeClosed: boolean;
}

/** Whether a block is a `thinking` or `redacted_thinking` block. */
export const isThinking = (block: ContentBlock): boolean =>
  block.type === "thinking" || block.type === "redacted_thinking";

/** Whether a message holds a `thinking` or `redacted_thinking` block. */
export function holdsThinking(message: Message): boolean {
  return message.content.some(isThinking);
}

/** Index of the first message of `after` that is not the same object as in `before`. */
function firstDifference(before: readonly Message[], after: readonly Message[]): number {
  const length = Math.min(before.length, after.length);
  for (let index = 0; index < length; index += 1) {
    if (before[index] !== after[index]) return index;
  }
  return length;
}

/** The role the API reads a message with: a system message is its own. */
const wireRole = (message: Message) => (isSystemMessage(message) ? "system" : message.role);

/**
 * Index of the first message of `after` whose thinking an edit invalidated. Usually the first
 * message that differs from `before`; but a new leading `compaction` block (the API's own
 * summary) starts a new checked prefix that continues the messages it summarized: "the checked
 * prefix starts at the most recent compaction block". So when `after` is such a block followed
 * by messages of `before` kept unchanged (the same objects, in order, up to its end or the
 * first difference), those kept messages are not edited, provided the API does not merge the
 * first of them into the summarized part: it must not be a system message, and its role must
 * differ from that of the last message before it in `before` (the compaction-thinking-blocks
 * doc's conditions). The block is trusted to summarize exactly the messages it replaced.
 */
function firstEdit(before: readonly Message[], after: readonly Message[]): number {
  const first = firstDifference(before, after);
  if (first !== 0 || !startsWithCompaction(after[0])) return first;
  const kept = after[1];
  if (kept === undefined) return after.length;
  const at = before.indexOf(kept);
  const last = before[at - 1];
  if (at < 1 || last === undefined) return 1;
  if (isSystemMessage(kept) || wireRole(kept) === wireRole(last)) return 1;
  return 1 + firstDifference(before.slice(at), after.slice(1));
}

/**
 * The tool exchange the conversation ends in (system messages after it aside): the assistant
 * message of calls (`call`) and, after it, messages of results alone (one result at least; one
 * message per result in some formats, the AI SDK's tool approvals among them) up to `results`.
 * The user's words after them end it too (`worded`): the Messages API merges a run of user
 * messages into one, whose results answer that assistant message. The message at `results` may
 * lead with results of its own before the words (`lead` blocks: the API's own shape). Any other
 * shape (results after the words) is no open exchange.
 */
function openExchange(
  conversation: readonly Message[],
): { call: number; results: number; lead: number; worded: boolean } | undefined {
  let end = conversation.length;
  while (end > 0 && isSystemMessage(conversation[end - 1])) end -= 1;
  let call = end - 1;
  while (call >= 0 && conversation[call]!.role === "user" && !isSystemMessage(conversation[call]))
    call -= 1;
  const caller = conversation[call];
  if (caller?.role !== "assistant" || !caller.content.some(isToolUse)) return undefined;
  let results = call + 1;
  let answered = false;
  for (; results < end && holdsResultsOnly(conversation[results]!); results += 1)
    answered ||= conversation[results]!.content.some(isToolResult);
  let lead = 0;
  if (results < end) {
    const { content } = conversation[results]!;
    while (lead < content.length && isToolResult(content[lead]!)) lead += 1;
    for (let at = results; at < end; at += 1)
      if (
        conversation[at]!.content.some(
          (block, index) => isToolResult(block) && (at > results || index >= lead),
        )
      )
        return undefined;
  }
  if (!answered && lead === 0) return undefined;
  return { call, results, lead, worded: results < end };
}

const isToolUse = (block: ContentBlock) => block.type === "tool_use";
const isToolResult = (block: ContentBlock) => block.type === "tool_result";

/**
 * Whether the conversation ends (system messages aside) in an assistant message of thinking and
 * tool calls one of which is not answered yet, with nothing after it but messages of results and
 * of blocks carried whole (the AI SDK's tool approvals; the results of the calls that needed
 * none): the caller runs the calls and sends their results after it, which the Messages API
 * takes only with that message's thinking valid, so nothing before it may change ("a final
 * assistant message must start with a thinking block").
 */
export function awaitsCallsWithThinking(conversation: readonly Message[]): boolean {
  let end = conversation.length;
  while (end > 0 && isSystemMessage(conversation[end - 1])) end -= 1;
  let call = end - 1;
  const answered = new Set<string>();
  for (; call >= 0 && holdsResultsOnly(conversation[call]!); call -= 1)
    for (const block of conversation[call]!.content)
      if (block.type === "tool_result") answered.add(block.toolUseId);
  const caller = conversation[call];
  return (
    caller?.role === "assistant" &&
    caller.content.some((block) => block.type === "tool_use" && !answered.has(block.id)) &&
    holdsThinking(caller)
  );
}

/**
 * Removes, in place, every thinking block of `conversation` from `repair.firstChange` on,
 * counting them into `repair`; whether the message at `exchange` lost any. A function of its own:
 * V8 compiles its long loop on the stack, and code after the loop in the same function then
 * met no type feedback and threw the compiled code away again and again.
 */
function dropThinking(
  conversation: Message[],
  before: readonly Message[],
  beforeThinkingFree: boolean,
  repair: ThinkingRepair,
  exchange: number | undefined,
): boolean {
  let strippedCall = false;
  for (let index = repair.firstChange; index < conversation.length; index += 1) {
    const message = conversation[index]!;
    // A message of `before` in place holds none when the caller knows `before` holds none.
    if ((beforeThinkingFree && message === before[index]) || !holdsThinking(message)) continue;
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
  return strippedCall;
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
  const base = {
    sessionId: last.sessionId,
    turnId: last.turnId,
    clock,
    generated: "continuation" as const,
  };
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
 * `redacted_thinking` block goes, whole, none left between (the documented manual fix). A new
 * leading `compaction` block written by the API is no edit of the messages it keeps after it
 * unchanged: their thinking stays (see {@link firstEdit} for the conditions). An
 * assistant message left empty says so in a text block. When the conversation then ends in a
 * tool exchange whose assistant message lost its thinking, a short assistant note and a user
 * message "Continue." close it. Thinking before the change is untouched, so it stays valid,
 * and the history is append-only again from here. Pure: unchanged messages are shared.
 */
export function keepThinkingValid(
  before: readonly Message[],
  after: readonly Message[],
  clock: Clock = systemClock,
  beforeThinkingFree = false,
): { conversation: Message[]; repair: ThinkingRepair } {
  const firstChange = firstEdit(before, after);
  const conversation = after.slice();
  const repair: ThinkingRepair = {
    firstChange,
    thinkingBlocksDropped: 0,
    thinkingTokensDropped: 0,
    toolExchangeClosed: false,
  };
  if (firstChange === before.length && firstChange === after.length)
    return { conversation, repair };
  const exchange = openExchange(conversation);
  if (dropThinking(conversation, before, beforeThinkingFree, repair, exchange?.call)) {
    const { results, lead, worded } = exchange!;
    const [note, request] = continuation(conversation.at(-1)!, clock);
    // Before the user's words in messages of their own, the note alone closes it: they are the
    // request after it. A message of results and words (the API's own shape) stays whole, its
    // results answering the calls (what a recall of it gives back is the message as it came):
    // the note and the request after it, as at the end of results alone.
    if (worded && lead === 0) conversation.splice(results, 0, note);
    else conversation.push(note, request);
    repair.toolExchangeClosed = true;
  }
  return { conversation, repair };
}
