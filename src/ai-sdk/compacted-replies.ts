import type { ContentBlock, Message } from "../core/message.js";
import { keepThinkingValid } from "../core/preserved-thinking.js";
import { AI_SDK_KEY } from "./parts-in.js";

/**
 * The provider-metadata key `compactionMiddleware` marks a reply's signed reasoning with when
 * the prompt it answered was compacted: that reasoning is signed over the compacted history,
 * not the history an app keeps (`[...messages, ...response.messages]`). The AI SDK hands it
 * back as the part's `providerOptions`, which providers ignore (each reads its own key).
 */
export const COMPACTED_PROMPT_KEY = "agentCompaction";

const MARK = { compactedPrompt: true };

/**
 * A reply's part, marked when it is reasoning (a generated `reasoning` part, or a stream's
 * `reasoning-start`, `-delta`, `-end` chunk) that carries metadata: the SDK keeps the last
 * metadata a reasoning part's chunks carry, so each carrying some is marked; one that carries
 * none signs nothing.
 */
export function markedReasoning<T extends { type: string; providerMetadata?: object | undefined }>(
  part: T,
): T {
  if (!part.type.startsWith("reasoning") || part.providerMetadata === undefined) return part;
  return { ...part, providerMetadata: { ...part.providerMetadata, [COMPACTED_PROMPT_KEY]: MARK } };
}

/** Whether `block` is thinking a reply made over a compacted prompt (marked, see above). */
function signedOverCompaction(block: ContentBlock): boolean {
  if (block.type !== "thinking" && block.type !== "redacted_thinking") return false;
  const fields = block.extra?.[AI_SDK_KEY] as { providerOptions?: unknown } | undefined;
  const options = fields?.providerOptions;
  return typeof options === "object" && options !== null && COMPACTED_PROMPT_KEY in options;
}

/**
 * A history seen for the first time (a fresh middleware, a restart) with thinking signed over a
 * compacted prompt: that thinking, and all after it, is stale on the history as kept (the
 * Messages API refuses it: "Invalid `signature` in `thinking` block"), so it goes as a
 * compaction's stale thinking goes ({@link keepThinkingValid}). The messages themselves when
 * none is marked.
 */
export function withoutThinkingOverCompaction(messages: Message[]): Message[] {
  const first = messages.findIndex((message) => message.content.some(signedOverCompaction));
  if (first === -1) return messages;
  const edited = messages.slice();
  // An edit at the first marked message: the thinking from it on is stale.
  edited[first] = { ...messages[first]!, content: messages[first]!.content.slice() } as Message;
  return keepThinkingValid(messages, edited).conversation;
}
