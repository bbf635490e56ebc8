import type { JsonObject, JsonValue } from "../core/message.js";

/**
 * The chat messages `out` with each user message the library wrote (a summary, a notice: its
 * index in `written`) joined with the user message after it, the library's parts first (or,
 * when none follows, with the user message before it): one user message of parts, the fields of
 * the caller's message kept. A host whose chat template wants user and assistant to alternate
 * (vLLM or llama.cpp serving Gemma or an older Mistral: "Conversation roles must alternate
 * user/assistant/user/assistant/...") refuses two user messages in a row; text parts are the
 * API's own form of a user message, and `fromChatMessages` reads the library's parts back apart
 * from the request. `out` itself when there is nothing to join.
 */
export function joinedUserMessages(out: JsonObject[], written: readonly number[]): JsonObject[] {
  if (written.length === 0) return out;
  const library = new Set(written);
  const joined: JsonObject[] = [];
  // The library's messages not yet joined: they go with the user message after them.
  let pending: JsonObject | undefined;
  const flush = () => {
    if (pending === undefined) return;
    const before = joined.at(-1);
    if (before?.["role"] === "user") joined[joined.length - 1] = join(before, pending, true);
    else joined.push(pending);
    pending = undefined;
  };
  for (let index = 0; index < out.length; index += 1) {
    const message = out[index]!;
    const ours = library.has(index);
    // A role read only where it matters: most messages are the caller's own, read before.
    const user = (ours || pending !== undefined) && message["role"] === "user";
    if (user && ours) pending = pending === undefined ? message : join(pending, message, true);
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
