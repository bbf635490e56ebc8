import { estimateMessageTokens } from "../src/core/message-memo.js";
import type { Message } from "../src/index.js";
import type { TokenUsage } from "../src/models/index.js";

/**
 * The prompt cache the dollar bench bills against, modelled the way providers bill it: a request
 * reads from the cache the longest prefix byte-identical to the previous request's (the system
 * prompt and tools first, then message by message from the start), and writes the rest. The
 * cache is warm (consecutive requests fall inside the 5-minute TTL); writes are 5-minute writes.
 */
export class PrefixCache {
  #previous: readonly Message[] | undefined;
  readonly #systemTokens: number;

  /** `systemTokens`: the system prompt and tools every request of the agent starts with. */
  constructor(systemTokens: number) {
    this.#systemTokens = systemTokens;
  }

  /**
   * Bills one request of `messages` (after the system prompt and tools) followed by
   * `extraTokens` that no earlier request sent (a summary instruction): the usage it reports,
   * output aside. The request becomes the previous one.
   */
  request(messages: readonly Message[], extraTokens = 0): Required<TokenUsage> {
    const previous = this.#previous;
    let read = previous === undefined ? 0 : this.#systemTokens;
    let total = this.#systemTokens + extraTokens;
    let shared = previous !== undefined;
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      const tokens = estimateMessageTokens(message);
      total += tokens;
      if (shared && previous !== undefined && sameMessage(message, previous[index])) {
        read += tokens;
      } else {
        shared = false;
      }
    }
    this.#previous = messages.slice();
    return {
      inputTokens: 0,
      cacheReadInputTokens: read,
      cacheCreationInputTokens: total - read,
      outputTokens: 0,
    };
  }

  /** The tokens of a request of `messages`: the system prompt and tools, then the messages. */
  tokens(messages: readonly Message[]): number {
    let total = this.#systemTokens;
    for (const message of messages) total += estimateMessageTokens(message);
    return total;
  }
}

/** Byte-identical on the wire: the same object, or the same role and content. */
function sameMessage(message: Message, other: Message | undefined): boolean {
  if (other === undefined) return false;
  if (message === other) return true;
  return (
    message.role === other.role && JSON.stringify(message.content) === JSON.stringify(other.content)
  );
}
