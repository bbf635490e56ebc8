import type {
  AssistantContent,
  FilePart,
  ImagePart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from "ai";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from "../core/message.js";
import { textToData } from "../internal/binary.js";
import { isPlainObject, spreadWith } from "../internal/plain-object.js";
import { sentBlocks } from "./foreign-parts.js";
import { AI_SDK_KEY } from "./parts-in.js";

type ProviderOptions = NonNullable<TextPart["providerOptions"]>;
type ReasoningPart = Extract<Exclude<AssistantContent, string>[number], { type: "reasoning" }>;
type ToolResultOutput = ToolResultPart["output"];
type OutputContentPart = Extract<ToolResultOutput, { type: "content" }>["value"][number];

/** The parts written, each a spread of its shape, every field set (see `core/message-shapes.ts`). */
const PART = {
  text: { type: "text", text: "" },
  toolCall: { type: "tool-call", toolCallId: "", toolName: "" },
  toolCallWithInput: { type: "tool-call", toolCallId: "", toolName: "", input: undefined },
  toolResult: { type: "tool-result", toolCallId: "", toolName: "", output: undefined },
  output: { type: "text", value: "" },
} as const;

/** What {@link aiSdkFields} gives for a block that kept none: one object, never written to. */
const NO_FIELDS: JsonObject = Object.freeze({});

/**
 * The AI SDK fields a block kept (see {@link AI_SDK_KEY}); empty for a block made elsewhere.
 * Read only: the object may be shared.
 */
export function aiSdkFields(block: ContentBlock): Readonly<JsonObject> {
  if (block.type === "opaque") return NO_FIELDS;
  const fields = block.extra?.[AI_SDK_KEY];
  return isPlainObject(fields) ? (fields as JsonObject) : NO_FIELDS;
}

function providerOptionsOf(
  fields: JsonObject,
  key = "providerOptions",
): ProviderOptions | undefined {
  // A block made elsewhere, nearly all in a session: no lookup by a key not known in advance.
  if (fields === NO_FIELDS) return undefined;
  const options = fields[key];
  return isPlainObject(options) ? (options as ProviderOptions) : undefined;
}

function withOptions<P extends object>(part: P, options: ProviderOptions | undefined): P {
  return options === undefined ? part : spreadWith(part, { providerOptions: options });
}

/** A text block as a text part. */
export function textToPart(block: TextBlock): TextPart {
  return withOptions({ ...PART.text, text: block.text }, providerOptionsOf(aiSdkFields(block)));
}

/**
 * An image block as an image part, or as the file part it came from; in an assistant message
 * (`asFile`) always a file part: the AI SDK's assistant content takes no image part ("do not
 * match the ModelMessage[] schema"), and another model's image (Gemini's, LangChain's) has none.
 */
export function imageToPart(block: ImageBlock, asFile = false): ImagePart | FilePart {
  const fields = aiSdkFields(block);
  const { source } = block;
  const text =
    source.type === "base64" ? source.data : source.type === "url" ? source.url : source.fileId;
  const data = textToData(text, fields["data"]);
  const mediaType =
    source.type === "base64" && source.mediaType !== "image/*"
      ? source.mediaType
      : typeof fields["mediaType"] === "string"
        ? fields["mediaType"]
        : undefined;
  const options = providerOptionsOf(fields);
  if (asFile || fields["part"] === "file") {
    const file: FilePart = { type: "file", data, mediaType: mediaType ?? "image/*" };
    if (typeof fields["filename"] === "string") file.filename = fields["filename"];
    return withOptions(file, options);
  }
  const image: ImagePart = { type: "image", image: data };
  if (mediaType !== undefined) image.mediaType = mediaType;
  return withOptions(image, options);
}

/** A thinking block (Anthropic's signed reasoning) as a reasoning part. */
export function thinkingToPart(block: ThinkingBlock | RedactedThinkingBlock): ReasoningPart {
  const fields = aiSdkFields(block);
  const kept = providerOptionsOf(fields);
  if (block.type === "thinking") {
    const options = kept ?? { anthropic: { signature: block.signature } };
    return { type: "reasoning", text: block.thinking, providerOptions: options };
  }
  const options = kept ?? { anthropic: { redactedData: block.data } };
  const text = typeof fields["text"] === "string" ? fields["text"] : "";
  return { type: "reasoning", text, providerOptions: options };
}

/** A tool use block as a tool call part. */
export function toolUseToPart(block: ToolUseBlock): ToolCallPart {
  const fields = aiSdkFields(block);
  const part = (
    fields["noInput"] === true
      ? { ...PART.toolCall, toolCallId: block.id, toolName: block.name }
      : {
          ...PART.toolCallWithInput,
          toolCallId: block.id,
          toolName: block.name,
          input: "input" in fields ? fields["input"] : block.input,
        }
  ) as ToolCallPart;
  if (fields["providerExecuted"] === false) part.providerExecuted = false;
  return withOptions(part, providerOptionsOf(fields));
}

/** An opaque block as the part it was, its binary data restored. */
export function opaqueToPart<P>(block: OpaqueBlock): P {
  const kindKey = `${AI_SDK_KEY}:data`;
  if (!(kindKey in block.block)) return block.block as P;
  const { [kindKey]: kind, ...part } = block.block;
  return { ...part, data: textToData(String(part["data"]), kind) } as P;
}

function contentToPart(block: ToolResultContentBlock): OutputContentPart {
  if (block.type === "opaque") return opaqueToPart<OutputContentPart>(block);
  const fields = aiSdkFields(block);
  const options = providerOptionsOf(fields);
  if (block.type === "text") return withOptions({ ...PART.text, text: block.text }, options);
  const { source } = block;
  if (source.type === "base64") {
    const type = fields["part"] === "media" ? "media" : "image-data";
    return withOptions(
      { type, data: source.data, mediaType: source.mediaType },
      options,
    ) as OutputContentPart;
  }
  if (source.type === "url") return withOptions({ type: "image-url", url: source.url }, options);
  return withOptions({ type: "image-file-id", fileId: source.fileId }, options);
}

type HeldContent = string | readonly ToolResultContentBlock[];

/**
 * A result's content as sent: without another API's parts (see `sendsToAiSdk`), an empty text
 * when those were all it held.
 */
function sentContent(content: ToolResultBlock["content"]): HeldContent {
  if (typeof content === "string") return content;
  const sent = sentBlocks(content);
  return sent.length === 0 && content.length > 0 ? "" : sent;
}

function resultText(content: HeldContent): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) if (block.type === "text") text += block.text;
  return text;
}

function parsedJson(text: string, length: JsonValue | undefined): JsonValue | undefined {
  if (length !== text.length) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The output a result block holds: its own kind while its content is the original. */
function outputOf(block: ToolResultBlock, fields: JsonObject): ToolResultOutput {
  const kind = fields["output"];
  const content = sentContent(block.content);
  let output: ToolResultOutput;
  if (kind === undefined && typeof content === "string") {
    output = { ...PART.output, type: block.isError ? "error-text" : "text", value: content };
  } else if (kind === "execution-denied" && typeof content === "string") {
    output =
      fields["noReason"] === true && content === ""
        ? { type: kind }
        : { type: kind, reason: content };
  } else if (typeof content !== "string") {
    output = { type: "content", value: content.map(contentToPart) };
  } else {
    const json =
      kind === "json" || kind === "error-json"
        ? parsedJson(content, fields["jsonLength"])
        : undefined;
    const type = block.isError ? "error-json" : "json";
    output =
      json === undefined
        ? { type: block.isError ? "error-text" : "text", value: resultText(content) }
        : json === null && fields["noValue"] === true
          ? ({ type } as ToolResultOutput)
          : { type, value: json };
  }
  const options = providerOptionsOf(fields, "outputProviderOptions");
  return options === undefined
    ? output
    : ({ ...output, providerOptions: options } as ToolResultOutput);
}

/**
 * A tool result block as a tool result part; `toolName` kept, or `callName` (the name its
 * source part gave), or found from its call.
 */
export function toolResultToPart(
  block: ToolResultBlock,
  toolNames: Pick<ReadonlyMap<string, string>, "get">,
  callName?: string,
): ToolResultPart {
  const fields = aiSdkFields(block);
  const toolName =
    typeof fields["toolName"] === "string"
      ? fields["toolName"]
      : (callName ?? toolNames.get(block.toolUseId) ?? "unknown");
  const part: ToolResultPart = {
    ...PART.toolResult,
    toolCallId: block.toolUseId,
    toolName,
    output: outputOf(block, fields),
  };
  return withOptions(part, providerOptionsOf(fields));
}
