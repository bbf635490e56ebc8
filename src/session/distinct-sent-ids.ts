import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import type { Message } from "../core/message.js";

/**
 * What a one-call helper sends of `sent` (its compaction of `converted`, the conversion of the
 * caller's messages) to an API that refuses a tool call id twice: `withDistinctToolIds(sent)`
 * when the conversion had an id twice (`mends`) or a message it did not make holds a tool use;
 * else `sent` itself, which then holds no id twice, without a walk over every message.
 */
export function distinctSent(
  converted: readonly Message[],
  sent: readonly Message[],
  mends: boolean,
): readonly Message[] {
  return mends || holdsOtherToolUse(converted, sent) ? withDistinctToolIds(sent) : sent;
}

/**
 * Whether a message of `sent` other than one of `converted` (as the conversion made it) holds
 * a tool use. When none does, and the conversion's own tool uses had no id twice (no `mends`),
 * no id comes twice in `sent` ({@link withDistinctToolIds} would leave it as it is), and it is
 * not walked again: a compaction keeps messages in order, and one it changed (a masked result)
 * stands where it stood. The conversion's messages are found by their ids, their positions.
 */
function holdsOtherToolUse(converted: readonly Message[], sent: readonly Message[]): boolean {
  let next = 0;
  for (let index = 0; index < sent.length; index += 1) {
    const message = sent[index]!;
    const expected: Message | undefined = converted[next];
    if (expected === message) {
      next += 1;
      continue;
    }
    // Changed where it stood; else where its id (its position) says, past messages removed
    // (one met again, or out of order, is walked).
    if (expected !== undefined && expected.id === message.id) next += 1;
    else {
      const at = Number(message.id);
      if (at > next && converted[at] === message) {
        next = at + 1;
        continue;
      }
    }
    const { content } = message;
    for (let block = 0; block < content.length; block += 1)
      if (content[block]!.type === "tool_use") return true;
  }
  return false;
}
