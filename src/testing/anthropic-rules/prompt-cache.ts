import { roughTokens } from "./responses.js";
import { bodyOf, hashText } from "./wire.js";

/** What a request reads from the cache and writes to it, in tokens. */
export interface CacheUse {
  read: number;
  write: number;
}

/**
 * A simplified prompt cache, as automatic caching behaves: every request writes its whole
 * prompt (`system`, tools, then each message) at the end, and a later request reads the longest
 * prefix an earlier one wrote, whole messages at a time. No TTL, no minimum size, one cache for
 * every model. As the docs' table of what invalidates the cache has it ("Tool choice: Changes to
 * tool_choice parameter only affect message blocks", tools and system cache valid:
 * https://platform.claude.com/docs/en/build-with-claude/prompt-caching#what-invalidates-the-cache),
 * the messages are read only after the same `tool_choice`; `system` and tools regardless.
 */
export class PromptCache {
  readonly #written = new Set<string>();

  /** Reads and writes `body`'s prompt; `total` is its token count. */
  use(body: unknown, total: number): CacheUse {
    const { system, tools, messages, tool_choice: choice } = bodyOf(body);
    const list = Array.isArray(messages) ? messages : [];
    // One chain of digests, a link per message: linear in the prompt's size.
    let digest = hashText(JSON.stringify({ system, tools }));
    const digests = [digest];
    // Unsaved as a prefix of its own: the messages' links hang from it.
    digest = hashText(`${digest}\n${JSON.stringify(choice ?? null)}`);
    for (const message of list) {
      digest = hashText(`${digest}\n${JSON.stringify(message)}`);
      digests.push(digest);
    }
    let kept = -1;
    for (let index = digests.length - 1; index >= 0 && kept === -1; index -= 1) {
      if (this.#written.has(digests[index]!)) kept = index;
    }
    for (const written of digests) this.#written.add(written);
    const read =
      kept === -1
        ? 0
        : Math.min(total, roughTokens({ system, tools, messages: list.slice(0, kept) }));
    return { read, write: total - read };
  }
}
