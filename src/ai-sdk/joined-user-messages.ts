import type { ModelMessage, UserContent } from "ai";
import type { Message } from "../core/message.js";
import { isSummaryText } from "../core/summary-format.js";
import { isSummaryTurn } from "../core/turn.js";

type UserPart = Exclude<UserContent, string>[number];

/**
 * Whether one of ours is a user message the library wrote: one it marked (`generated`), or the
 * summary's turn read back from a request (a summary, a notice), which {@link joinedUserMessages}
 * joins with the user message beside it.
 */
export function isLibraryUserMessage(message: Message): boolean {
  // The first block before the turn: the writer has just read it, and it rules out nearly all.
  return (
    message.role === "user" &&
    (message.generated !== undefined ||
      (isSummaryText(message.content[0]) && isSummaryTurn(message.turnId)))
  );
}

/**
 * The AI SDK messages `out` with each user message the library wrote (a summary, a notice: its
 * index in `written`) joined with the user message after it, the library's parts first (or, when
 * none follows, with the user message before it): one user message, the caller's fields kept
 * (its `providerOptions`). `@ai-sdk/google` sends two user messages in a row as two user
 * contents, which Gemini refuses ("Please ensure that multiturn requests alternate between user
 * and model"), as do hosts whose chat template wants roles to alternate through
 * `@ai-sdk/openai-compatible`. `fromModelMessages` and the stateless paths read such a message
 * back apart (the library's parts the summary's turn, the rest the request's). Only a message of
 * plain text parts is joined: another API's parts (a compaction) are left as they are. `out`
 * itself when there is nothing to join.
 */
export function joinedUserMessages(
  out: ModelMessage[],
  written: readonly number[],
): ModelMessage[] {
  if (written.length === 0) return out;
  const library = new Set(written);
  const joined: ModelMessage[] = [];
  // The library's messages not yet joined: they go with the user message after them.
  let pending: ModelMessage | undefined;
  const flush = () => {
    if (pending === undefined) return;
    const before = joined.at(-1);
    if (before?.role === "user") joined[joined.length - 1] = join(before, pending, true);
    else joined.push(pending);
    pending = undefined;
  };
  for (let index = 0; index < out.length; index += 1) {
    const message = out[index]!;
    const user = message.role === "user";
    if (user && library.has(index) && isPlainText(message))
      pending = pending === undefined ? message : join(pending, message, true);
    else if (user && pending !== undefined) {
      joined.push(join(pending, message, false));
      pending = undefined;
    } else {
      flush();
      joined.push(message);
    }
  }
  flush();
  return joined;
}

/** Whether a user message holds only text parts of no options of their own (the library's). */
function isPlainText(message: ModelMessage): boolean {
  const { content } = message as { content: UserContent };
  if (typeof content === "string") return true;
  for (const part of content)
    if (part.type !== "text" || part.providerOptions !== undefined) return false;
  return true;
}

/**
 * `first` and `second` (user messages) as one: their parts in order, the other fields of
 * `first` (`keepFirst`) or of `second`: the caller's message, not the library's.
 */
function join(first: ModelMessage, second: ModelMessage, keepFirst: boolean): ModelMessage {
  const kept = keepFirst ? first : second;
  return { ...kept, content: [...partsOf(first), ...partsOf(second)] } as ModelMessage;
}

/** A user message's content as parts: a string as one text part (none when empty). */
function partsOf(message: ModelMessage): readonly UserPart[] {
  const { content } = message as { content: UserContent };
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content;
}
