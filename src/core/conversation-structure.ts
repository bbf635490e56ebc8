import { plainPrefix } from "../internal/prefix-view.js";
import {
  COMPACTION_BLOCK_TYPE,
  type CompactionBlock,
  type ContentBlock,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type SystemMessageBlock,
} from "./message.js";
import { estimateMessageTokens } from "./message-memo.js";
import { isSummaryTurn } from "./turn.js";

/**
 * `messages` as an array V8 reads at full speed: a frozen array (the session's `messages`, an
 * Immer or Redux state) as a plain copy, any other as it is. On Node 20, V8 reads a frozen
 * array's elements about 4x slower and slices it about 100x slower than a plain array's, while
 * copying it with a spread costs about as much as one plain slice. A session's `messages` view
 * (a proxy, see `prefixView`) is copied with a native slice of the array it shares.
 */
export function readableMessages(messages: readonly Message[]): readonly Message[] {
  return plainPrefix(messages) ?? (Object.isFrozen(messages) ? [...messages] : messages);
}

/** Whether a block is a `compaction` block the Anthropic API wrote ({@link CompactionBlock}). */
export function isCompactionBlock(block: ContentBlock | undefined): block is CompactionBlock {
  return block?.type === "opaque" && block.block["type"] === COMPACTION_BLOCK_TYPE;
}

/** Whether a message starts with a `compaction` block: it stands for the messages it summarized. */
export function startsWithCompaction(message: Message | undefined): boolean {
  return isCompactionBlock(message?.content[0]);
}

/** Whether a block carries a mid-conversation system message ({@link SystemMessageBlock}). */
export function isSystemMessageBlock(block: ContentBlock | undefined): block is SystemMessageBlock {
  return (
    block?.type === "opaque" &&
    block.block["type"] === SYSTEM_MESSAGE_BLOCK_TYPE &&
    typeof block.block["message"] === "object" &&
    block.block["message"] !== null &&
    !Array.isArray(block.block["message"])
  );
}

/** Whether a message is a mid-conversation system message: one {@link SystemMessageBlock}. */
export function isSystemMessage(message: Message | undefined): boolean {
  return message?.content.length === 1 && isSystemMessageBlock(message.content[0]);
}

/**
 * Where a conversation may be cut without splitting a tool exchange: `safe[cut]` is true when no
 * tool result at or after `cut` answers a tool use before it, so the messages before `cut` can
 * be folded, trimmed or summarized apart from the rest. Has `length + 1` entries; cutting at 0
 * or at the end is always safe. A result whose use is missing splits nothing. A cut never falls
 * right before a system message ({@link isSystemMessage}): it stays with the message it follows,
 * nor inside the open tail (the calls of the last assistant message and the messages of results
 * after it: an AI SDK tool approval answered, its call to run, is answered by nothing yet).
 */
export function safeCuts(conversation: readonly Message[]): boolean[] {
  // For each message, the earliest tool use its results answer: for each result, the latest
  // use before it with its id (a provider may number calls per step and reuse an id).
  const latestUse = new Map<string, number>();
  const answers = new Array<number>(conversation.length).fill(Number.POSITIVE_INFINITY);
  conversation.forEach((message, index) => {
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const use = latestUse.get(block.toolUseId);
      if (use !== undefined && use < answers[index]!) answers[index] = use;
    }
    for (const block of message.content) {
      if (block.type === "tool_use") latestUse.set(block.id, index);
    }
  });
  const safe = new Array<boolean>(conversation.length + 1).fill(true);
  // Scanning back, the earliest tool use that a result at or after `cut` answers.
  let earliestAnswered = Number.POSITIVE_INFINITY;
  for (let cut = conversation.length - 1; cut >= 1; cut -= 1) {
    earliestAnswered = Math.min(earliestAnswered, answers[cut]!);
    safe[cut] = earliestAnswered >= cut && !isSystemMessage(conversation[cut]);
  }
  const caller = tailCaller(conversation);
  if (caller >= 0 && conversation[caller]!.content.some((block) => block.type === "tool_use"))
    for (let cut = caller + 1; cut < conversation.length; cut += 1) safe[cut] = false;
  return safe;
}

/** The latest safe cut (see {@link safeCuts}) at or before `atMost`; 0 when there is none. */
export function latestSafeCut(safe: readonly boolean[], atMost: number): number {
  for (let cut = Math.min(atMost, safe.length - 1); cut > 0; cut -= 1) {
    if (safe[cut]) return cut;
  }
  return 0;
}

/**
 * Whether a message holds the user's own words: a user message, not a summary (turn `u0`) nor
 * one the library wrote in the user's place (a continuation's "Continue."), with a non-empty
 * text block, tool results beside it or not.
 */
export function hasUserText(message: Message): boolean {
  return (
    message.role === "user" &&
    !message.generated &&
    !isSummaryTurn(message.turnId) &&
    message.content.some((block) => block.type === "text" && block.text.trim() !== "")
  );
}

/**
 * Whether a message is a request of the user: the user's own words ({@link hasUserText}) and
 * no tool results. A message answering tool calls is the agent's loop going on, even with
 * words beside the results; an image alone asks nothing.
 */
export function isUserRequest(message: Message): boolean {
  return hasUserText(message) && !message.content.some((block) => block.type === "tool_result");
}

/**
 * Index of the latest request of the user ({@link isUserRequest}): what compaction keeps
 * verbatim whatever else it folds or trims. -1 when there is none.
 */
export function latestRequestIndex(conversation: readonly Message[]): number {
  return conversation.findLastIndex(isUserRequest);
}

/**
 * Estimated tokens from each index to the end: `sums[index]` is the estimate of the messages
 * from `index` on, `sums[length]` is 0. What is kept after a cut at `index` costs `sums[index]`.
 */
export function suffixTokenSums(conversation: readonly Message[]): number[] {
  const sums = new Array<number>(conversation.length + 1).fill(0);
  for (let index = conversation.length - 1; index >= 0; index -= 1) {
    sums[index] = sums[index + 1]! + estimateMessageTokens(conversation[index]!);
  }
  return sums;
}

/**
 * Where the message before the run of messages of results alone that ends `messages` is (the
 * one whose calls they answer, when it is an assistant message's): `-1` when there is none.
 */
export function tailCaller(messages: readonly Message[]): number {
  let at = messages.length - 1;
  while (at >= 0 && holdsResultsOnly(messages[at]!)) at -= 1;
  return at;
}

/**
 * Whether `message` is a user message of tool results and nothing else: no words of the user's,
 * no system message. Provider blocks carried whole count with the results (the AI SDK's tool
 * approvals: an approved call waits for its result after them).
 */
export function holdsResultsOnly(message: Message): boolean {
  if (message.role !== "user" || message.content.length === 0 || isSystemMessage(message))
    return false;
  for (const block of message.content)
    if (block.type !== "tool_result" && block.type !== "opaque") return false;
  return true;
}
