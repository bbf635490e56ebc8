import type { ContentBlock, Message } from "../core/message.js";
import {
  CONTINUATION_NOTE,
  CONTINUATION_REQUEST,
  holdsThinking,
  isThinking,
} from "../core/preserved-thinking.js";
import type { SessionEntry } from "../session/session-entry.js";

const hasBlock = (message: Message, type: ContentBlock["type"]) =>
  message.content.some((block) => block.type === type);

/** The message without its thinking blocks (as a compaction removes them); the same one when it has none. */
function withoutThinking(message: Message): Message {
  if (!holdsThinking(message)) return message;
  const kept = message.content.filter((block) => !isThinking(block));
  return {
    ...message,
    content: kept.length > 0 ? kept : [{ type: "text", text: "[thinking omitted]" }],
  } as Message;
}

/** The two messages that close a tool exchange whose call lost its thinking; ids derive from `results`. */
function continuation(results: Message): Message[] {
  const base = {
    sessionId: results.sessionId,
    turnId: results.turnId,
    createdAt: results.createdAt,
    generated: "continuation" as const,
  };
  return [
    {
      ...base,
      role: "assistant",
      id: `${results.id}:continue`,
      content: [{ type: "text", text: CONTINUATION_NOTE }],
    },
    {
      ...base,
      role: "user",
      id: `${results.id}:continued`,
      content: [{ type: "text", text: CONTINUATION_REQUEST }],
    },
  ];
}

/**
 * The id of a compacted history's last message when it is a tool call whose thinking the
 * compaction removed: results that answer it later need a continuation.
 */
export function strippedToolCall(
  before: Message | undefined,
  after: Message | undefined,
): string | undefined {
  if (before === undefined || after === undefined || before.id !== after.id) return undefined;
  if (after.role !== "assistant" || !hasBlock(after, "tool_use")) return undefined;
  const lost = holdsThinking(before) && !holdsThinking(after);
  return lost ? after.id : undefined;
}

/**
 * How a stored session replays its log in the store's order, so every worker builds the same
 * conversation from the same records. A message written against an older head than the one
 * it lands on (a reply to a request built before another worker's compaction) loses its
 * thinking: it is bound to a prefix that changed. Tool results answering such a call get a
 * short continuation after them, as a compaction gives them (see `keepThinkingValid`).
 */
export class Replay {
  /** The tool call whose thinking went, awaiting its results. */
  strippedToolCall: string | undefined;
  readonly #keepStaleThinking: boolean;

  constructor(keepStaleThinking: boolean) {
    this.#keepStaleThinking = keepStaleThinking;
  }

  /**
   * The entry as it lands: messages already in the conversation (a retried append) left out,
   * stale thinking removed. `undefined` when nothing of it is left to apply.
   */
  entry(
    entry: SessionEntry,
    stale: boolean,
    has: (messageId: string) => boolean,
    last: Message | undefined,
  ): SessionEntry | undefined {
    if (entry.kind !== "messages") return entry;
    const strip = stale && !this.#keepStaleThinking;
    const batch: Message[] = [];
    let previous = last;
    for (const [index, message] of entry.messages.entries()) {
      // More results merged into the last message keep its id; anything else here already is a retry.
      const merges = index === 0 && entry.replacesLast === true && last?.id === message.id;
      if (has(message.id) && !merges) continue;
      const appended = strip ? withoutThinking(message) : message;
      batch.push(appended);
      if (appended.role === "assistant") {
        const lostThinking = appended !== message && hasBlock(appended, "tool_use");
        this.strippedToolCall = lostThinking ? appended.id : undefined;
      } else if (
        hasBlock(appended, "tool_result") &&
        previous?.role === "assistant" &&
        previous.id === this.strippedToolCall
      ) {
        batch.push(...continuation(appended));
        this.strippedToolCall = undefined;
      }
      previous = batch.at(-1);
    }
    if (batch.length === 0) return undefined;
    const merges = entry.replacesLast === true && batch[0]?.id === last?.id;
    const { replacesLast: _replacesLast, ...rest } = entry;
    return { ...rest, messages: batch, ...(merges ? { replacesLast: true as const } : {}) };
  }
}
