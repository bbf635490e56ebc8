import { isSystemMessage, isSystemMessageBlock } from "./conversation-structure.js";
import type { ContentBlock, JsonObject, Message } from "./message.js";

// How our messages become Gemini `contents`: which blocks go, and which messages share one
// `Content`. Read by the Gemini adapter, which writes the parts, and by the Gemini validity rules,
// which judge the contents the adapter makes; so neither imports the other.

/**
 * The key, in a block's `extra`, under which the Gemini API fields our blocks do not model are
 * kept verbatim: `part` (the part's own fields: `thoughtSignature`, `partMetadata`, …), `call`,
 * `noId` and `noArgs` (a `functionCall`'s other fields, and what it came without), `name`,
 * `response` and `fields` (a `functionResponse`'s), `mimeType` (a `fileData` image's), and on a
 * message's first block `content`: the `Content`'s marks (see {@link geminiContentMarks}).
 */
export const GEMINI_KEY = "gemini";

/** The key under which a Gemini part carried whole keeps its `Content`'s marks. */
export const GEMINI_CONTENT_MARKS_KEY = "gemini:content";

/** The Gemini fields a block kept (see {@link GEMINI_KEY}); `undefined` for one made elsewhere. */
export function geminiFields(block: ContentBlock): JsonObject | undefined {
  if (block.type === "opaque") return undefined;
  const fields = block.extra?.[GEMINI_KEY];
  return typeof fields === "object" && fields !== null && !Array.isArray(fields)
    ? fields
    : undefined;
}

/** An object field of `fields`, or `undefined`. */
export function objectField(fields: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = fields?.[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}

/** A Gemini part carried whole: an opaque block without a `type` (every other provider's has one). */
export function isGeminiPart(block: ContentBlock): boolean {
  return block.type === "opaque" && !Object.hasOwn(block.block, "type");
}

/** A Gemini thought (`thought: true`) carried whole: the model's private reasoning, as thinking is. */
export function isGeminiThought(block: ContentBlock): boolean {
  return isGeminiPart(block) && block.type === "opaque" && block.block["thought"] === true;
}

/**
 * The thought signature a block carries on the wire: the `thoughtSignature` of a part carried
 * whole (a thought), or the one kept beside a function call, a text or an image.
 */
export function geminiSignature(block: ContentBlock): string | undefined {
  if (block.type === "opaque") {
    const signature = block.block["thoughtSignature"];
    return typeof signature === "string" ? signature : undefined;
  }
  const signature = objectField(geminiFields(block), "part")?.["thoughtSignature"];
  return typeof signature === "string" ? signature : undefined;
}

/**
 * Whether a block becomes a Gemini part: text, images, tool calls and results, the Gemini parts
 * the adapter carried whole (thoughts among them), a mid-conversation system message (as user
 * text). Not another provider's thinking or opaque blocks: the Gemini API cannot read them.
 */
export function sendsToGemini(block: ContentBlock): boolean {
  switch (block.type) {
    case "thinking":
    case "redacted_thinking":
      return false;
    case "opaque":
      return isGeminiPart(block) || isSystemMessageBlock(block);
    default:
      return true;
  }
}

/** One block of a `Content`, and where it sits in the messages. */
export interface GeminiEntry {
  block: ContentBlock;
  messageIndex: number;
  blockIndex: number;
}

/** One `Content` the messages make: its role, the message it starts with, and its blocks. */
export interface GeminiContentGroup {
  role: "user" | "model";
  /** The message whose first sent block opens it (its `content` fields and `noRole` apply). */
  messageIndex: number;
  entries: GeminiEntry[];
}

/**
 * The marks a message's first block keeps of the `Content` it was read from: `fields` (the
 * `Content`'s fields besides `role` and `parts`), `noRole` (it had no `role`: the API reads it
 * as the user's) and `separate` (it followed a `Content` of the same role, and stays apart).
 */
export function geminiContentMarks(block: ContentBlock): JsonObject | undefined {
  if (block.type !== "opaque") return objectField(geminiFields(block), "content");
  const marks = block.block[GEMINI_CONTENT_MARKS_KEY];
  return typeof marks === "object" && marks !== null && !Array.isArray(marks) ? marks : undefined;
}

/** Whether a message's blocks open a `Content` of their own (one read apart from its neighbour). */
function startsOwnContent(first: ContentBlock): boolean {
  return geminiContentMarks(first)?.["separate"] === true;
}

/**
 * The `Content`s the messages make, in order: a message's blocks that go to Gemini (see
 * {@link sendsToGemini}) join the `Content` before them when it has the same role (Gemini wants
 * user and model to alternate), unless the message was read as a `Content` of its own; a message
 * with none makes nothing. A mid-conversation system message is the user's.
 */
export function geminiContentGroups(messages: readonly Message[]): GeminiContentGroup[] {
  const groups: GeminiContentGroup[] = [];
  messages.forEach((message, messageIndex) => {
    const entries: GeminiEntry[] = [];
    message.content.forEach((block, blockIndex) => {
      if (sendsToGemini(block)) entries.push({ block, messageIndex, blockIndex });
    });
    const first = entries[0];
    if (first === undefined) return;
    const role = message.role === "assistant" && !isSystemMessage(message) ? "model" : "user";
    const last = groups.at(-1);
    if (last?.role === role && !startsOwnContent(first.block)) last.entries.push(...entries);
    else groups.push({ role, messageIndex, entries });
  });
  return groups;
}
