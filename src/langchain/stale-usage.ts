import type { BaseMessage } from "@langchain/core/messages";
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
 * Marks the messages of `out` that are not the caller's (`given`), each with the number of AI
 * messages from it to the end ({@link STALE_USAGE_KEY}); one after every reply has no mark (a
 * mark its original carried is dropped). Every mark holds when it is written: each reply in the
 * output came before the compaction. A reply appended after it lies past every mark's count.
 */
export function markStaleUsage(out: readonly BaseMessage[], given: readonly BaseMessage[]): void {
  const caller = new Set(given);
  let replies = 0;
  for (let index = out.length - 1; index >= 0; index -= 1) {
    const message = out[index]!;
    if (isReply(message)) replies += 1;
    if (caller.has(message)) continue;
    // A rebuilt message holds its original's `additional_kwargs` by reference: written anew.
    const kwargs: Record<string, unknown> = isRecord(message.additional_kwargs)
      ? message.additional_kwargs
      : {};
    if (replies === 0 && !Object.hasOwn(kwargs, STALE_USAGE_KEY)) continue;
    const { [STALE_USAGE_KEY]: _old, ...rest } = kwargs;
    message.additional_kwargs = replies === 0 ? rest : { ...rest, [STALE_USAGE_KEY]: replies };
  }
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
