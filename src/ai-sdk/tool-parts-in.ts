import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  ToolResultBlock,
  ToolResultContentBlock,
} from "../core/message.js";
import { toolResultBlock, toolUseBlock } from "../core/message-shapes.js";
import { checkedJsonObjectLength } from "../internal/json-length.js";
import { copyJson, normalizeJson } from "../internal/json-value.js";
import { isPlainObject } from "../internal/plain-object.js";
import {
  type AiSdkFields,
  child,
  fail,
  jsonField,
  keepProviderOptions,
  opaquePart,
  type PartContext,
  type Record_,
  stringField,
  textPart,
  withExtra,
} from "./parts-in.js";

/** A tool call the app runs (a provider-executed one is carried whole). */
export function toolCallPart(context: PartContext, part: Record_): ContentBlock {
  if (part["providerExecuted"] === true) return opaquePart(context, part);
  const id = stringField(context, part["toolCallId"], "toolCallId", false);
  const name = stringField(context, part["toolName"], "toolName", false);
  if (part["providerOptions"] === undefined && part["providerExecuted"] === undefined) {
    // The common call: its input checked and measured by one walk, and kept as it is (or its
    // copy, for messages that outlive the call).
    const input = part["input"];
    const length = checkedJsonObjectLength(input);
    if (length >= 0) {
      context.inputLength = length;
      const kept =
        context.copyInputs === true ? (copyJson(input) ?? normalizeJson(input, [], [])) : input;
      return toolUseBlock(id, name, kept as JsonObject);
    }
    if (isPlainObject(input)) {
      const checked = jsonField(context, input, "input", true);
      return { type: "tool_use", id, name, input: (checked ?? {}) as JsonObject };
    }
  }
  const fields: AiSdkFields = {};
  let input: JsonObject = {};
  if (isPlainObject(part["input"])) {
    const checked = jsonField(context, part["input"], "input", true);
    if (checked !== undefined) input = checked as JsonObject;
  } else if (part["input"] === undefined) {
    // No input at all (the part's `input` is `unknown`): it goes back without one.
    fields["noInput"] = true;
  } else {
    // A model's malformed arguments (a string, an array): kept as they were, outside `input`.
    const raw = jsonField(context, part["input"], "input");
    fields["input"] = raw ?? null;
  }
  if (part["providerExecuted"] === false) fields["providerExecuted"] = false;
  keepProviderOptions(context, part, fields);
  return withExtra({ type: "tool_use", id, name, input }, fields);
}

const OUTPUT_TYPES = new Set([
  "text",
  "json",
  "error-text",
  "error-json",
  "content",
  "execution-denied",
]);

/** One part of a `content` output. */
function outputContentPart(context: PartContext, part: unknown): ToolResultContentBlock {
  if (!isPlainObject(part) || typeof part["type"] !== "string") {
    fail(context, undefined, "must be a tool output part with a type");
    return { type: "opaque", block: {} };
  }
  switch (part["type"]) {
    case "text":
      return textPart(context, part) as ToolResultContentBlock;
    case "media":
      // An image is read as one; other media are carried whole. A part without a media type
      // string is refused, as an image part's is (its type decides how it is read).
      if (typeof part["mediaType"] !== "string") {
        stringField(context, part["mediaType"], "mediaType", false);
        return { type: "opaque", block: {} };
      }
      if (!part["mediaType"].startsWith("image/")) break;
      return imagePart(context, part);
    case "image-data":
      return imagePart(context, part);
    case "image-url":
      return withExtra(
        {
          type: "image",
          source: { type: "url", url: stringField(context, part["url"], "url", false) },
        },
        partFields(context, part),
      );
  }
  return opaquePart(context, part);
}

/** An `image-data` part, or a `media` part of an image type, as an image block. */
function imagePart(context: PartContext, part: Record_): ToolResultContentBlock {
  return withExtra(
    {
      type: "image",
      source: {
        type: "base64",
        mediaType: stringField(context, part["mediaType"], "mediaType", false),
        data: stringField(context, part["data"], "data"),
      },
    } satisfies ImageBlock,
    partFields(context, part),
  );
}

function partFields(context: PartContext, part: Record_): AiSdkFields {
  const fields: AiSdkFields = { part: part["type"] as string };
  keepProviderOptions(context, part, fields);
  return fields;
}

/** A tool result part of a `tool` message. */
export function toolResultPart(context: PartContext, part: Record_): ToolResultBlock {
  const toolUseId = stringField(context, part["toolCallId"], "toolCallId", false);
  const toolName = stringField(context, part["toolName"], "toolName", false);
  const output = part["output"];
  // The common case, text in and out: nothing to keep when the call named the same tool.
  if (
    isPlainTextOutput(output) &&
    part["providerOptions"] === undefined &&
    context.callName?.(toolUseId) === toolName
  ) {
    const isError = output.type === "error-text";
    return toolResultBlock(toolUseId, output.value, isError);
  }
  const fields: AiSdkFields = { toolName };
  keepProviderOptions(context, part, fields);
  if (!isPlainObject(output) || !OUTPUT_TYPES.has(output["type"] as string)) {
    fail(
      context,
      "output",
      `must be a tool output whose type is one of ${[...OUTPUT_TYPES].join(", ")}`,
    );
    return { type: "tool_result", toolUseId, content: "", isError: false };
  }
  const type = output["type"] as string;
  fields["output"] = type;
  const outputContext = child(context, "output");
  if (output["providerOptions"] !== undefined) {
    const options = jsonField(outputContext, output["providerOptions"], "providerOptions");
    if (options !== undefined) fields["outputProviderOptions"] = options;
  }
  const isError = type === "error-text" || type === "error-json" || type === "execution-denied";
  let content: ToolResultBlock["content"];
  if (type === "text" || type === "error-text") {
    content = stringField(outputContext, output["value"], "value");
  } else if (type === "json" || type === "error-json") {
    // No value is JSON's null, and comes back as no value.
    if (output["value"] === undefined) fields["noValue"] = true;
    const value = jsonField(outputContext, output["value"] ?? null, "value") ?? null;
    content = JSON.stringify(value);
    // Only this exact text is the JSON value: a masked or summarized result is text again.
    fields["jsonLength"] = content.length;
  } else if (type === "execution-denied") {
    if (output["reason"] === undefined) fields["noReason"] = true;
    content =
      output["reason"] === undefined ? "" : stringField(outputContext, output["reason"], "reason");
  } else if (Array.isArray(output["value"])) {
    content = output["value"].map((item, index) =>
      outputContentPart(child(outputContext, "value", index), item),
    );
  } else {
    fail(outputContext, "value", "must be an array of content parts");
    content = [];
  }
  return withExtra({ type: "tool_result", toolUseId, content, isError }, fields);
}

/** Whether an output is `text` or `error-text` with nothing else to keep. */
function isPlainTextOutput(
  output: unknown,
): output is { type: "text" | "error-text"; value: string } {
  return (
    isPlainObject(output) &&
    typeof output["value"] === "string" &&
    output["providerOptions"] === undefined &&
    (output["type"] === "text" || output["type"] === "error-text")
  );
}
