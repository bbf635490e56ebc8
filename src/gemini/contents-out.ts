import type { Content, Part } from "@google/genai";
import {
  isSystemMessage,
  isSystemMessageBlock,
  readableMessages,
} from "../core/conversation-structure.js";
import { assertMessages } from "../core/entry-validation.js";
import {
  GEMINI_CONTENT_MARKS_KEY,
  geminiContentMarks,
  geminiFields,
  objectField,
  sendsToGemini,
} from "../core/gemini-contents.js";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  Message,
  ToolResultBlock,
  ToolUseBlock,
} from "../core/message.js";
import { keyed } from "../core/message-shapes.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { copyJson } from "../internal/json-value.js";
import { spreadWith } from "../internal/plain-object.js";
import { systemText } from "../internal/system-text.js";
import { CallsSoFar, inCallOrder } from "./calls-so-far.js";
import { responseText } from "./parts-in.js";
import { quickPartOf } from "./parts-quick.js";

/** The MIME type of an image by the end of its URL, for one written elsewhere. */
function guessedImageType(url: string): string {
  const lower = url.toLowerCase();
  for (const [end, type] of [
    [".png", "image/png"],
    [".gif", "image/gif"],
    [".webp", "image/webp"],
  ] as const)
    if (lower.endsWith(end)) return type;
  return "image/jpeg";
}

function imageData(block: ImageBlock, fields: JsonObject | undefined): JsonObject {
  const { source } = block;
  if (source.type === "base64")
    return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const uri = source.type === "url" ? source.url : source.fileId;
  const kept = fields?.["mimeType"];
  return {
    fileData: { mimeType: typeof kept === "string" ? kept : guessedImageType(uri), fileUri: uri },
  };
}

function callPart(block: ToolUseBlock, fields: JsonObject | undefined): JsonObject {
  const noArgs = fields?.["noArgs"] === true && Object.keys(block.input).length === 0;
  return {
    functionCall: {
      ...objectField(fields, "call"),
      ...(fields?.["noId"] === true ? {} : { id: block.id }),
      name: block.name,
      ...(noArgs ? {} : { args: block.input }),
    },
  };
}

/**
 * A tool result as a `functionResponse`: the response the API sent while it still says what the
 * block says, else `{ output }` (or `{ error }`) with the block's text; its images as `parts`.
 */
function resultPart(
  block: ToolResultBlock,
  fields: JsonObject | undefined,
  call: ToolUseBlock | undefined,
): JsonObject {
  const blocks = typeof block.content === "string" ? [] : block.content;
  const text =
    typeof block.content === "string"
      ? block.content
      : blocks.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const media = blocks.filter((part) => part.type !== "text");
  const kept = objectField(fields, "response");
  const said = kept === undefined ? undefined : responseText(kept);
  const noResponse = fields?.["noResponse"] === true && text === "{}" && !block.isError;
  const response =
    said !== undefined && said.text === text && said.isError === block.isError
      ? kept
      : block.isError
        ? { error: text }
        : { output: text };
  const name = fields?.["name"] ?? call?.name ?? block.toolUseId;
  const withoutId =
    fields?.["noId"] === true || (call !== undefined && geminiFields(call)?.["noId"] === true);
  return {
    functionResponse: {
      ...objectField(fields, "fields"),
      ...(withoutId ? {} : { id: block.toolUseId }),
      name,
      ...(noResponse ? {} : { response: response as JsonValue }),
      ...(media.length === 0
        ? {}
        : {
            parts: media.map((part) =>
              part.type === "image" ? imageData(part, geminiFields(part)) : part.block,
            ),
          }),
    },
  };
}

/** One block as a part; `calls` holds the calls before it, by id, for the results. */
export function partOf(
  block: ContentBlock,
  calls: Pick<ReadonlyMap<string, ToolUseBlock>, "get">,
): JsonObject {
  if (block.type === "opaque") {
    if (isSystemMessageBlock(block)) return { text: systemText(block.block.message["content"]) };
    const { [GEMINI_CONTENT_MARKS_KEY]: _marks, ...part } = block.block;
    return part;
  }
  const fields = geminiFields(block);
  const part = objectField(fields, "part") ?? {};
  switch (block.type) {
    case "text":
      return spreadWith(part, { text: block.text });
    case "image":
      return spreadWith(part, imageData(block, fields));
    case "tool_use":
      return spreadWith(part, callPart(block, fields));
    case "tool_result":
      return spreadWith(part, resultPart(block, fields, calls.get(block.toolUseId)));
    default:
      return part;
  }
}

/**
 * Converts our messages to Gemini `contents`, the inverse of {@link fromGeminiContents}: each
 * part comes back verbatim and in place, thoughts and function calls with their
 * `thoughtSignature`, calls and responses with their ids (none where the API gave none). A
 * message of the same role as the one before joins its `Content` (Gemini wants user and model to
 * alternate), unless it was read as a `Content` of its own. Blocks written elsewhere get plain
 * shapes: a tool result `{ output }` (`{ error }` for an error) named after its call, a
 * mid-conversation system message the user's text; another provider's thinking and opaque
 * blocks are left out. The contents are new objects, shared with nothing.
 *
 * @example
 * const response = await ai.models.generateContent({ model, contents: toGeminiContents(session.messages), config });
 * @throws {ValidationError} naming the field when `input` is not the library's messages
 * (Gemini contents go through `fromGeminiContents` first) or two share an id.
 */
export function toGeminiContents(input: readonly Message[]): Content[] {
  // Cheap for a session's messages: each message object is fully checked only once.
  assertMessages(input, "messages");
  return writeGeminiContents(input);
}

/**
 * {@link toGeminiContents} of messages checked where they entered (a one-call helper's): a
 * message written as a `Content` of its own that `origins` knows unchanged goes as the caller's
 * content it came from.
 */
export function writeGeminiContents(
  input: readonly Message[],
  origins?: ItemOrigins<Content>,
): Content[] {
  const messages = readableMessages(input);
  const writer = new ContentsWriter(messages.length);
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (origins === undefined || !writer.reuse(message, messages[index + 1], origins))
      writer.add(message);
  }
  return writer.written();
}

/** A content's shape, written whole by a spread (see `core/message-shapes.ts`), each field set. */
const CONTENT = { role: "user", parts: undefined } as const;

/** The role of the content a message is written into. */
const roleOf = (message: Message) =>
  message.role === "assistant" && !isSystemMessage(message) ? "model" : "user";

/** Whether a message read as a content of its own is marked so (it followed one of its role). */
function markedSeparate(message: Message): boolean {
  const first = message.content[0];
  return first !== undefined && geminiContentMarks(first)?.["separate"] === true;
}

/**
 * Writes messages into `Content`s as `geminiContentGroups` groups them, in one pass: no group,
 * entry or closure made per message or block, only the contents and their parts.
 */
class ContentsWriter {
  /** Room for a content per message, the most there can be (no copies as it grows). */
  readonly #contents: Content[];
  #count = 0;
  readonly #calls = new CallsSoFar();
  /** The role and parts of the last `Content`, which a message of the same role joins. */
  #role: "user" | "model" | undefined;
  #parts: Part[] = [];

  constructor(messages: number) {
    // At most 65,536 made ahead: V8 keeps a longer `new Array(length)` as a dictionary.
    this.#contents = new Array(Math.min(messages, 65_536));
  }

  /** The contents written. */
  written(): Content[] {
    this.#contents.length = this.#count;
    return this.#contents;
  }

  /**
   * Puts the caller's content for `message` when `origins` knows it unchanged and it is written
   * as a content of its own, every block sent, which the message after it (`next`) does not
   * join: the content the writing would make. Whether it did.
   */
  reuse(message: Message, next: Message | undefined, origins: ItemOrigins<Content>): boolean {
    const role = roleOf(message);
    const { content } = message;
    if (isSystemMessage(message) || (this.#role === role && !markedSeparate(message))) return false;
    for (let index = 0; index < content.length; index += 1)
      if (!sendsToGemini(content[index]!)) return false;
    if (
      next !== undefined &&
      (next.content.length === 0 ||
        !sendsToGemini(next.content[0]!) ||
        (roleOf(next) === role && !markedSeparate(next)))
    )
      return false;
    const end = origins.put(message, this.#contents, this.#count);
    if (end === -1) return false;
    this.#count = end;
    for (let index = 0; index < content.length; index += 1) {
      const block = content[index]!;
      if (block.type === "tool_use") this.#calls.add(block);
    }
    // Nothing joins the caller's content: the next message starts one of its own.
    this.#role = undefined;
    this.#parts = [];
    return true;
  }

  add(message: Message): void {
    const content = inCallOrder(message.content, this.#calls);
    // Where the message's next part goes in the parts of the content it is written into.
    let at = -1;
    for (let index = 0; index < content.length; index += 1) {
      const block = content[index]!;
      if (!sendsToGemini(block)) continue;
      if (at < 0) at = this.#start(message, index);
      if (block.type === "tool_use") this.#calls.add(block);
      this.#parts[at] = this.#part(block);
      at += 1;
    }
  }

  /**
   * Where the parts of `message`, whose first block sent is at `from`, start: after the last
   * content's parts when it joins that content, else at 0 of a new content's, made as long as
   * they will be (a push would make room for 17).
   */
  #start(message: Message, from: number): number {
    const { content } = message;
    const role = message.role === "assistant" && !isSystemMessage(message) ? "model" : "user";
    const marks = geminiContentMarks(content[from]!);
    if (this.#role === role && marks?.["separate"] !== true) return this.#parts.length;
    let sent = 1;
    for (let index = from + 1; index < content.length; index += 1)
      if (sendsToGemini(content[index]!)) sent += 1;
    const parts: Part[] = new Array(sent);
    const fields = objectField(marks, "fields");
    let opened: Record<string, unknown>;
    if (fields !== undefined) {
      opened = spreadWith(fields, {});
      if (marks?.["noRole"] !== true) opened["role"] = role;
      opened["parts"] = parts;
    } else
      opened = marks?.["noRole"] === true ? keyed("parts", parts) : { ...CONTENT, role, parts };
    this.#contents[this.#count] = opened as Content;
    this.#count += 1;
    this.#role = role;
    this.#parts = parts;
    return 0;
  }

  /** A block as a part, a copy: the caller (or the SDK) may change it, the session's blocks stay. */
  #part(block: ContentBlock): Part {
    const quick = quickPartOf(block, this.#calls);
    if (quick !== undefined) return quick as Part;
    const part = partOf(block, this.#calls);
    return (copyJson(part) ?? structuredClone(part)) as Part;
  }
}
