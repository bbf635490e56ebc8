import { hasAdapterMark } from "../core/adapter-marks.js";
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import { COMPACTION_BLOCK_TYPE, type ContentBlock, type JsonObject } from "../core/message.js";

// Which opaque blocks the AI SDK can take as parts. `fromModelMessages` keeps its own parts
// whole, unmarked (a reasoning part without Anthropic's signature, a non-image file, a
// provider-executed call or result, a tool approval, a tool output's `file-data` or `custom`
// part), and Anthropic's compaction block as one it hands its Anthropic provider. The other
// adapters keep their APIs' blocks (Anthropic's server tool blocks, Gemini's parts, Responses
// items, LangChain's standard blocks): as parts, the AI SDK's prompt validation refuses them
// ("Invalid prompt"), so they are left out.

/**
 * Hyphenated lowercase words: how the AI SDK names its parts (`tool-call`,
 * `tool-approval-request`, `file-data`) and no other API its blocks (they use snake_case, or
 * no `type` at all: Gemini).
 */
const HYPHENATED = /^[a-z]+(?:-[a-z]+)+$/;

/**
 * The AI SDK's part types of one word, each with the field its part must have, which the
 * blocks of other APIs of the same name lack (a Responses `reasoning` item has a `summary`,
 * LangChain's `reasoning` a `reasoning` and its `file` a `mimeType`, Chat Completions' `file`
 * a `file`): a message's `text`, `image`, `file`, `reasoning`; a tool output's `media` and
 * `custom`.
 */
const WORD_TYPES: Readonly<Record<string, (part: JsonObject) => boolean>> = {
  text: (part) => typeof part["text"] === "string",
  image: (part) => part["image"] !== undefined,
  file: (part) => part["data"] !== undefined && typeof part["mediaType"] === "string",
  reasoning: (part) => typeof part["text"] === "string",
  media: (part) => part["data"] !== undefined && typeof part["mediaType"] === "string",
  custom: () => true,
};

/**
 * The marks of the adapters whose opaque blocks are never AI SDK parts: those that read only
 * their own API's blocks, and LangChain's (its messages hold its providers' blocks).
 */
const OTHER_MARKS: ReadonlySet<string> = new Set([
  BOOKKEEPING_KEYS.openai,
  BOOKKEEPING_KEYS.chatCompletions,
  BOOKKEEPING_KEYS.gemini,
  BOOKKEEPING_KEYS.langchain,
]);

/**
 * Whether an opaque block (its `block`) is one `toModelMessages` sends: Anthropic's compaction
 * block (a `compaction` with `content`, sent as the text part the AI SDK's Anthropic provider
 * takes; a Responses compaction item has none); else, marked by no other adapter
 * (`openai:…`, `chatCompletions:…`, `gemini:…`, `langchain:…`), an AI SDK part: its type
 * hyphenated ({@link HYPHENATED}: `tool-approval-request`, and newer ones) or one of the AI
 * SDK's one-word types with the field it requires ({@link WORD_TYPES}).
 */
export function isAiSdkOpaque(block: JsonObject): boolean {
  const type = block["type"];
  if (typeof type !== "string") return false;
  if (type === COMPACTION_BLOCK_TYPE) return Object.hasOwn(block, "content");
  if (hasAdapterMark(block, OTHER_MARKS)) return false;
  if (HYPHENATED.test(type)) return true;
  const check = Object.hasOwn(WORD_TYPES, type) ? WORD_TYPES[type] : undefined;
  return check?.(block) === true;
}

/**
 * Whether `toModelMessages` sends a block: every modelled block does; an opaque block when it
 * is an AI SDK part or Anthropic's compaction block ({@link isAiSdkOpaque}).
 */
export function sendsToAiSdk(block: ContentBlock): boolean {
  return block.type !== "opaque" || isAiSdkOpaque(block.block);
}

/**
 * `blocks` without those `toModelMessages` leaves out ({@link sendsToAiSdk}): the very array
 * when it sends them all (the common case, which allocates nothing).
 */
export function sentBlocks<B extends ContentBlock>(blocks: readonly B[]): readonly B[] {
  let index = 0;
  while (index < blocks.length && sendsToAiSdk(blocks[index]!)) index += 1;
  if (index === blocks.length) return blocks;
  const sent = blocks.slice(0, index);
  for (index += 1; index < blocks.length; index += 1)
    if (sendsToAiSdk(blocks[index]!)) sent.push(blocks[index]!);
  return sent;
}
