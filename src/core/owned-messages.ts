import { freezeBuiltMessages } from "../internal/frozen.js";
import { copyJson } from "../internal/json-value.js";
import type { ContentBlock, ImageSource, JsonObject, Message } from "./message.js";
import { fastMessageTokens } from "./message-fast-check.js";

/**
 * Messages from a caller as a session keeps them, copied by hand: what `MessageSchema`'s parse
 * makes of them (new objects of the fields it defines, in its order; JSON values normalized;
 * strings and the date shared), frozen, with each one's estimate. Each field of the caller's
 * objects is read once, into the copy, and the copy is what the fast check
 * ({@link fastMessageTokens}) then judges, so a getter cannot answer one thing to the check and
 * another to the copy. `undefined` when any message is not of the shapes the fast check vouches
 * for: the schema then judges them all, and names the issues. A fast path in front of the
 * schema, as the fast check is (`test/fuzz/message-fast-check.fuzz.test.ts` holds it to the
 * schema's parse): a session taking a long history at once (a stateless server's request)
 * pays a walk and a copy, not zod's parse of every field.
 */
export function ownedMessages(
  values: readonly unknown[],
): { messages: Message[]; tokens: number[] } | undefined {
  const messages: Message[] = new Array(values.length);
  const tokens: number[] = new Array(values.length);
  for (let index = 0; index < values.length; index += 1) {
    const message = ownedMessage(values[index]);
    const estimate = message === undefined ? -1 : fastMessageTokens(message);
    if (estimate < 0) return undefined;
    messages[index] = message!;
    tokens[index] = estimate;
  }
  freezeBuiltMessages(messages);
  return { messages, tokens };
}

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of a message's fields (the values unchecked but for the containers); `undefined`: not one. */
function ownedMessage(value: unknown): Message | undefined {
  if (!isRecord(value)) return undefined;
  const { role, id, sessionId, turnId, createdAt, content, generated } = value;
  if (!isRecord(turnId) || !Array.isArray(content)) return undefined;
  const blocks: ContentBlock[] = new Array(content.length);
  for (let index = 0; index < content.length; index += 1) {
    const block = ownedBlock(content[index]);
    if (block === undefined) return undefined;
    blocks[index] = block;
  }
  const turn = { owner: turnId["owner"], number: turnId["number"] };
  const message: Fields = { role, id, sessionId, turnId: turn, createdAt, content: blocks };
  if (generated !== undefined) message["generated"] = generated;
  return message as unknown as Message;
}

/** A JSON object's normalized copy; `undefined` when it is none (or one the schema normalizes otherwise). */
function ownedObject(value: unknown): JsonObject | undefined {
  const copy = copyJson(value);
  return isRecord(copy) ? (copy as JsonObject) : undefined;
}

/** `block` with a copy of `extra` when there is one; `undefined` when that is no JSON object. */
function withExtra(block: Fields, extra: unknown): ContentBlock | undefined {
  if (extra === undefined) return block as unknown as ContentBlock;
  const copy = ownedObject(extra);
  if (copy === undefined) return undefined;
  block["extra"] = copy;
  return block as unknown as ContentBlock;
}

function ownedSource(source: unknown): ImageSource | undefined {
  if (!isRecord(source)) return undefined;
  const { type } = source;
  switch (type) {
    case "base64":
      return { type, mediaType: source["mediaType"], data: source["data"] } as ImageSource;
    case "url":
      return { type, url: source["url"] } as ImageSource;
    case "file":
      return { type, fileId: source["fileId"] } as ImageSource;
    default:
      return undefined;
  }
}

/** A block a tool result may hold, copied (text, image or opaque). */
function ownedPart(part: unknown): ContentBlock | undefined {
  if (!isRecord(part)) return undefined;
  const { type } = part;
  if (type === "text") return withExtra({ type, text: part["text"] }, part["extra"]);
  if (type === "image") return ownedImage(part);
  if (type === "opaque") return ownedOpaque(part);
  return undefined;
}

function ownedImage(block: Fields): ContentBlock | undefined {
  const source = ownedSource(block["source"]);
  return source === undefined ? undefined : withExtra({ type: "image", source }, block["extra"]);
}

function ownedOpaque(block: Fields): ContentBlock | undefined {
  const inner = ownedObject(block["block"]);
  return inner === undefined ? undefined : { type: "opaque", block: inner };
}

function ownedToolResult(block: Fields): ContentBlock | undefined {
  const { toolUseId, content, isError, compactSummary, extra } = block;
  let parts: unknown = content;
  if (Array.isArray(content)) {
    const copies: ContentBlock[] = new Array(content.length);
    for (let index = 0; index < content.length; index += 1) {
      const part = ownedPart(content[index]);
      if (part === undefined) return undefined;
      copies[index] = part;
    }
    parts = copies;
  }
  const copy: Fields = { type: "tool_result", toolUseId, content: parts, isError };
  if (compactSummary !== undefined) copy["compactSummary"] = compactSummary;
  return withExtra(copy, extra);
}

/** A content block's fields copied, as its type's schema defines them. */
function ownedBlock(block: unknown): ContentBlock | undefined {
  if (!isRecord(block)) return undefined;
  const { type } = block;
  switch (type) {
    case "text":
      return withExtra({ type, text: block["text"] }, block["extra"]);
    case "tool_use": {
      const { id, name, input, extra } = block;
      const copy = ownedObject(input);
      return copy === undefined ? undefined : withExtra({ type, id, name, input: copy }, extra);
    }
    case "tool_result":
      return ownedToolResult(block);
    case "thinking": {
      const { thinking, signature, extra } = block;
      return withExtra({ type, thinking, signature }, extra);
    }
    case "redacted_thinking":
      return withExtra({ type, data: block["data"] }, block["extra"]);
    case "image":
      return ownedImage(block);
    case "opaque":
      return ownedOpaque(block);
    default:
      return undefined;
  }
}
