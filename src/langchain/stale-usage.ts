import type { BaseMessage } from "@langchain/core/messages";
import { isClearedToolInput } from "../compactors/cleared-tool-input.js";
import { isPlaceholder } from "../compactors/result-placeholder.js";
import { REDACTION_NOTICE } from "../compactors/tool-masking.js";
import { startsWithCompaction } from "../core/conversation-structure.js";
import type { ContentBlock, Message } from "../core/message.js";
import { setOwnProperty } from "../internal/plain-object.js";
import { recallHandleIn } from "../internal/recall-mark.js";
import { isRecord } from "./blocks-in.js";

/**
 * The `additional_kwargs` key `compactLangChainMessages` sets on each message it wrote or
 * rebuilt (a notice, a summary, a masked result, a clamped request): how many AI messages, from
 * that message on (itself included), the compaction found already there. Their
 * `usage_metadata` counted a conversation the compaction has since changed. It stays on the
 * message through LangChain's serialization (`toDict`, `toJSON`, a LangGraph checkpoint); it
 * rides where the library's `agent_compaction` mark does, in `additional_kwargs`, of which a
 * provider's request takes only the keys it knows.
 */
export const STALE_USAGE_KEY = "agent_compaction_stale_usage";

const isReply = (message: unknown): boolean => isRecord(message) && message["type"] === "ai";

/**
 * Marks the messages of `out` that are not the caller's (at the positions `written`, in
 * order), each with the number of AI messages from it to the end ({@link STALE_USAGE_KEY}); one
 * after every reply has no mark (a mark its original carried is dropped). Every mark holds when
 * it is written: each reply in the output came before the compaction. A reply appended after it
 * lies past every mark's count.
 */
export function markStaleUsage(out: readonly BaseMessage[], written: readonly number[]): void {
  let replies = 0;
  let next = written.length - 1;
  for (let index = out.length - 1; next >= 0 && index >= 0; index -= 1) {
    const message = out[index]!;
    if (isReply(message)) replies += 1;
    if (written[next] !== index) continue;
    next -= 1;
    // A rebuilt message holds its original's `additional_kwargs` by reference: written anew.
    const kwargs: Record<string, unknown> = isRecord(message.additional_kwargs)
      ? message.additional_kwargs
      : {};
    if (replies === 0 && !Object.hasOwn(kwargs, STALE_USAGE_KEY)) continue;
    message.additional_kwargs = withStaleCount(kwargs, replies);
  }
}

/**
 * `kwargs` without a mark, then marked with `replies` unless none: built key by key, as a rest
 * and a spread with a computed key make it field by field on V8's slow path.
 */
function withStaleCount(kwargs: Record<string, unknown>, replies: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(kwargs))
    if (key !== STALE_USAGE_KEY) setOwnProperty(out, key, kwargs[key]);
  // What a rest copies besides: enumerable symbol keys (listed after every string key either way).
  for (const symbol of Object.getOwnPropertySymbols(kwargs))
    if (Object.prototype.propertyIsEnumerable.call(kwargs, symbol))
      (out as Record<symbol, unknown>)[symbol] = (kwargs as Record<symbol, unknown>)[symbol];
  if (replies > 0) out[STALE_USAGE_KEY] = replies;
  return out;
}

/** Whether a block is one a compaction rewrote: a masked result, a cleared tool input. */
function isRewritten(block: ContentBlock): boolean {
  if (block.type === "tool_use") return isClearedToolInput(block.input);
  if (block.type !== "tool_result" || typeof block.content !== "string") return false;
  const { content, compactSummary } = block;
  return (
    isPlaceholder(content, REDACTION_NOTICE, REDACTION_NOTICE) ||
    (compactSummary !== undefined && isPlaceholder(content, compactSummary, compactSummary)) ||
    recallHandleIn(content) !== undefined
  );
}

/**
 * Whether a message of ours shows a compaction: one the library wrote (a summary, a notice, a
 * continuation), the API's `compaction` block, or a block a compaction rewrote. A reply after
 * it may have been sent what was there before: its usage is not trusted.
 */
export function showsCompaction(message: Message): boolean {
  return (
    message.generated !== undefined ||
    startsWithCompaction(message) ||
    message.content.some(isRewritten)
  );
}

/**
 * Marks `out[from]` ({@link STALE_USAGE_KEY}) with the number of AI messages from it to the
 * end: each may have been sent a conversation a compaction has since changed. A reply given
 * after `out` lies past the count, and is trusted.
 */
export function markStaleFrom(out: readonly BaseMessage[], from: number): void {
  const message = out[from];
  if (message === undefined) return;
  let replies = 0;
  for (let index = from; index < out.length; index += 1) if (isReply(out[index])) replies += 1;
  if (replies === 0) return;
  // Written anew: the fields may be the stored message's own, shared and frozen.
  message.additional_kwargs = { ...message.additional_kwargs, [STALE_USAGE_KEY]: replies };
}

/** A message's mark ({@link STALE_USAGE_KEY}): a whole count above 0, else 0. */
function markOf(message: unknown): number {
  if (!isRecord(message)) return 0;
  const kwargs = message["additional_kwargs"];
  const count = isRecord(kwargs) ? kwargs[STALE_USAGE_KEY] : undefined;
  return typeof count === "number" && Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/**
 * Which of `messages` are AI messages whose `usage_metadata` predates a compaction (by index):
 * those among the first `n` AI messages from a message marked `n`, itself included. A reply
 * before every mark (its prompt unchanged since) and one past every mark's count (given since,
 * its usage the real measure) are not.
 */
export function staleReplies(messages: readonly unknown[]): boolean[] {
  const stale: boolean[] = new Array(messages.length).fill(false);
  let covered = 0;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    covered = Math.max(covered, markOf(message));
    if (covered === 0 || !isReply(message)) continue;
    stale[index] = true;
    covered -= 1;
  }
  return stale;
}
