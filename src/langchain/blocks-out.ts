import { isBookkeepingKey } from "../core/bookkeeping-keys.js";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  ToolResultContentBlock,
  ToolUseBlock,
} from "../core/message.js";
import { dataBackAt, textToData } from "../internal/binary.js";
import { isRecord, LANGCHAIN_KEY, OPAQUE_BINARY_KEY, OPAQUE_DATA_KEY } from "./blocks-in.js";

type Record_ = Record<string, unknown>;

/** The LangChain fields a block of ours carries (`extra.langchain`), or none. */
export function fieldsOf(block: ContentBlock | undefined): Record_ {
  if (block === undefined || block.type === "opaque") return {};
  const fields = block.extra?.[LANGCHAIN_KEY];
  return isRecord(fields) ? fields : {};
}

/** `shape` with `values` put in (the keys it holds keep their place), or `values` as they are. */
function fromShape(shape: unknown, values: Record_): Record_ {
  if (!isRecord(shape)) return values;
  const out: Record_ = { ...shape };
  for (const key of Object.keys(values)) out[key] = values[key];
  return out;
}

/**
 * The data of an image's base64 source, held as it came: base64 text, or the bytes of a
 * `Uint8Array` or `Buffer` (its `data` field).
 */
function imageData(block: ImageBlock, data: string): string | Uint8Array {
  const { data: kind } = fieldsOf(block);
  return kind === "bytes" || kind === "buffer" ? (textToData(data, kind) as Uint8Array) : data;
}

/** The value an image's source puts back: data, a `data:` URL, a URL or a file id. */
function imageValue(block: ImageBlock, asUrl: boolean): string | Uint8Array {
  const { source } = block;
  if (source.type === "base64")
    return asUrl ? `data:${source.mediaType};base64,${source.data}` : imageData(block, source.data);
  return source.type === "url" ? source.url : source.fileId;
}

/** LangChain's standard image block for an image of ours with no shape of its own. */
function standardImage(block: ImageBlock): Record_ {
  const { source } = block;
  if (source.type === "base64")
    return { type: "image", data: imageData(block, source.data), mimeType: source.mediaType };
  return source.type === "url"
    ? { type: "image", url: source.url }
    : { type: "image", fileId: source.fileId };
}

/** An image as it came: its shape with its data or URL put back where `at` says. */
function imagePart(block: ImageBlock): Record_ {
  const { shape, at } = fieldsOf(block);
  if (!isRecord(shape) || !Array.isArray(at) || at.length === 0) return standardImage(block);
  const out: Record_ = { ...shape };
  let target = out;
  for (let index = 0; index < at.length - 1; index += 1) {
    const next = target[String(at[index])];
    if (!isRecord(next)) return standardImage(block);
    target[String(at[index])] = { ...next };
    target = target[String(at[index])] as Record_;
  }
  target[String(at.at(-1))] = imageValue(block, out["type"] === "image_url");
  return out;
}

/**
 * `value` (a carried block or system message, without its marks) with the binary data it noted
 * ({@link OPAQUE_BINARY_KEY}) given back as it was held.
 */
export function withBinaryBack(value: Record_, found: unknown): Record_ {
  if (!Array.isArray(found)) return value;
  let out: unknown = value;
  for (const entry of found)
    if (isRecord(entry) && Array.isArray(entry["at"]))
      out = dataBackAt(out, entry["at"], entry["kind"]);
  return out as Record_;
}

/**
 * `part` without the library's bookkeeping (this adapter's marks, and those another adapter
 * left on a block it carried: `aiSdk:data`, `openai:item`, …), which no LangChain model
 * takes; `part` itself when it holds none.
 */
export function withoutMarks(part: Record_): Record_ {
  let out: Record_ | undefined;
  for (const key of Object.keys(part)) {
    if (!isBookkeepingKey(key)) continue;
    out ??= { ...part };
    delete out[key];
  }
  return out ?? part;
}

/**
 * An opaque block as it came: without the message fields it carried and any adapter's marks,
 * binary data as it was held.
 */
function opaquePart(block: JsonObject): Record_ {
  const out = withoutMarks(block);
  if (out === block) return block;
  const kind = block[OPAQUE_DATA_KEY];
  if (kind !== undefined) out["data"] = textToData(String(block["data"]), kind);
  return withBinaryBack(out, block[OPAQUE_BINARY_KEY]);
}

/**
 * One block of ours as a LangChain content block: its shape restored where it came from
 * LangChain, LangChain's own shapes otherwise (`text`, Anthropic's `thinking`,
 * `redacted_thinking` and `tool_use`, the standard `image`). A bare string came as one.
 */
export function contentPart(block: ContentBlock): Record_ | string {
  const { shape, content } = fieldsOf(block);
  switch (block.type) {
    case "text":
      if (content === "string") return block.text;
      return fromShape(shape, { type: "text", text: block.text });
    case "thinking":
      return isRecord(shape) && shape["type"] === "reasoning"
        ? fromShape(shape, { reasoning: block.thinking, signature: block.signature })
        : fromShape(shape, {
            type: "thinking",
            thinking: block.thinking,
            signature: block.signature,
          });
    case "redacted_thinking":
      // Wrapped by LangChain's standard content (`non_standard`): the data goes back inside.
      return isRecord(shape) && shape["type"] === "non_standard" && isRecord(shape["value"])
        ? { ...shape, value: { ...shape["value"], data: block.data } }
        : fromShape(shape, { type: "redacted_thinking", data: block.data });
    case "image":
      return imagePart(block);
    case "tool_use":
      return toolUsePart(block, shape);
    case "tool_result":
      // Not in a LangChain message's content: carried as Anthropic writes it.
      return { type: "tool_result", tool_use_id: block.toolUseId, content: block.content as never };
    case "opaque":
      return opaquePart(block.block);
  }
}

/** A tool use as the content block it came as (`tool_use` or `tool_call`). */
function toolUsePart(block: ToolUseBlock, shape: unknown): Record_ {
  const standard = isRecord(shape) && shape["type"] === "tool_call";
  if (!isRecord(shape))
    return { type: "tool_use", id: block.id, name: block.name, input: block.input };
  const values: Record_ = { id: block.id, name: block.name };
  const inputKey = standard ? "args" : "input";
  // The input goes back unless the shape kept one of its own (a streamed string, say).
  if (shape[inputKey] === null) values[inputKey] = block.input;
  return fromShape(shape, values);
}

/** A tool use as one of an AI message's `tool_calls`. */
export function toolCall(block: ToolUseBlock): Record_ {
  const { call } = fieldsOf(block);
  return fromShape(
    call,
    isRecord(call)
      ? { name: block.name, args: block.input, id: block.id }
      : {
          name: block.name,
          args: block.input,
          id: block.id,
          type: "tool_call",
        },
  );
}

/** Whether a tool use stood in the message's content (else it was one of `tool_calls` only). */
export function inContent(block: ToolUseBlock): boolean {
  return isRecord(fieldsOf(block)["shape"]);
}

/** A tool result's content as LangChain's: its string, or its blocks. */
export function resultContent(
  content: string | readonly ToolResultContentBlock[],
): string | (Record_ | string)[] {
  return typeof content === "string" ? content : content.map(contentPart);
}

/** Text blocks' text joined: the content of a message that came with string content. */
export function joinedText(blocks: readonly ContentBlock[]): string {
  let text = "";
  for (const block of blocks) if (block.type === "text") text += block.text;
  return text;
}
