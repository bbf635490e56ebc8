import type { JsonObject, JsonValue } from "../core/message.js";

/**
 * The chat messages `out` with each user message the library wrote (a summary, a notice, an
 * assistant message's images: its index in `written`) joined with the user message after it,
 * the library's parts first (or, when none follows, with the user message before it): one user
 * message of parts, the fields of the caller's message kept. A host whose chat template wants
 * user and assistant to alternate (vLLM or llama.cpp serving Gemma or an older Mistral:
 * "Conversation roles must alternate user/assistant/user/assistant/...") refuses two user
 * messages in a row; text parts are the API's own form of a user message, and
 * `fromChatMessages` reads the library's parts back apart from the request.
 *
 * An assistant message of nothing to send (its index in `silent`: only another API's blocks)
 * is left out, as the other writers leave it out and strict hosts refuse an empty assistant
 * turn; but where that would put two of the caller's user messages in a row, it stays
 * (`content: ""`) between them, which keeps the roles alternating without making the caller's
 * two messages one. `out` itself when there is nothing to join or leave out.
 *
 * `seen` holds, by index, the caller's messages beside the library's as they were read (a user
 * message written anew, in the caller's key order; another by its role): their roles are read,
 * and they are joined, from there, never from the caller's objects a second time (a getter
 * that answered once may throw).
 */
export function joinedUserMessages(
  out: JsonObject[],
  written: readonly number[],
  silent: readonly number[] = [],
  seen?: ReadonlyMap<number, JsonObject>,
): JsonObject[] {
  if (written.length === 0 && silent.length === 0) return out;
  const library = new Set(written);
  const left = new Set(silent);
  const joined: JsonObject[] = [];
  // The library's messages not yet joined: they go with the user message after them.
  let pending: JsonObject | undefined;
  // The first message left out since the last one pushed: put back between two user messages.
  let skipped: JsonObject | undefined;
  // The last message pushed, as read.
  let last: JsonObject | undefined;
  const push = (message: JsonObject, read = message) => {
    if (skipped !== undefined && last?.["role"] === "user" && read["role"] === "user")
      joined.push(skipped);
    skipped = undefined;
    joined.push(message);
    last = read;
  };
  const flush = () => {
    if (pending === undefined) return;
    // Not across a message left out: what came before it is not joined with what came after.
    if (last?.["role"] === "user" && skipped === undefined) {
      last = join(last, pending, true);
      joined[joined.length - 1] = last;
    } else push(pending);
    pending = undefined;
  };
  for (let index = 0; index < out.length; index += 1) {
    const message = out[index]!;
    if (left.has(index)) {
      skipped ??= message;
      continue;
    }
    const read = seen?.get(index) ?? message;
    const ours = library.has(index);
    // A role read only where it matters: most messages are the caller's own, read before.
    const user = (ours || pending !== undefined) && read["role"] === "user";
    if (user && ours) pending = pending === undefined ? read : join(pending, read, true);
    else if (user && pending !== undefined) {
      push(join(pending, read, false));
      pending = undefined;
    } else {
      flush();
      push(message, read);
    }
  }
  flush();
  return joined;
}

/**
 * `first` and `second` as one user message: their parts in order, the other fields of `first`
 * (`keepFirst`) or of `second`: the caller's message, not the library's.
 */
function join(first: JsonObject, second: JsonObject, keepFirst: boolean): JsonObject {
  const kept = keepFirst ? first : second;
  return { ...kept, content: [...partsOf(first["content"]), ...partsOf(second["content"])] };
}

/** A user message's content as parts: a string as one text part (none when empty). */
function partsOf(content: JsonValue | undefined): JsonValue[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}
