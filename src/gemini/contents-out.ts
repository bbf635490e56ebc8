import type { Content, Part } from "@google/genai";
import { isSystemMessageBlock } from "../core/conversation-structure.js";
import {
  GEMINI_CONTENT_MARKS_KEY,
  geminiContentGroups,
  geminiContentMarks,
  geminiFields,
  objectField,
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
import { copyJson } from "../internal/json-value.js";
import { spreadWith } from "../internal/plain-object.js";
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

/** The text of a system message written mid-conversation (as the user's words to Gemini). */
function systemText(message: JsonObject): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      typeof part === "object" && part !== null && "text" in part ? part["text"] : "",
    )
    .filter((text): text is string => typeof text === "string")
    .join("\n");
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
export function partOf(block: ContentBlock, calls: ReadonlyMap<string, ToolUseBlock>): JsonObject {
  if (block.type === "opaque") {
    if (isSystemMessageBlock(block)) return { text: systemText(block.block.message) };
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
 */
export function toGeminiContents(messages: readonly Message[]): Content[] {
  const calls = new Map<string, ToolUseBlock>();
  return geminiContentGroups(messages).map((group) => {
    const parts = group.entries.map(({ block }) => {
      if (block.type === "tool_use") calls.set(block.id, block);
      // A copy: the caller (or the SDK) may change what it gets; the session's blocks stay as they are.
      const quick = quickPartOf(block, calls);
      if (quick !== undefined) return quick as Part;
      const part = partOf(block, calls);
      return (copyJson(part) ?? structuredClone(part)) as Part;
    });
    const first = group.entries[0]!.block;
    const marks = geminiContentMarks(first);
    const content: Record<string, unknown> = spreadWith(objectField(marks, "fields") ?? {}, {});
    if (marks?.["noRole"] !== true) content["role"] = group.role;
    content["parts"] = parts;
    return content as Content;
  });
}
