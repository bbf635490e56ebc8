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
  opaquePart,
  type PartContext,
  type Record_,
  stringField,
  textPart,
  withExtra,
} from "./parts-in.js";

/**
 * A tool call the app runs (a provider-executed one is carried whole). Each field is read once:
 * what was checked is what is kept (a getter may answer differently the next time).
 */
export function toolCallPart(context: PartContext, part: Record_): ContentBlock {
  const executed = part["providerExecuted"];
  if (executed === true) return opaquePart(context, part);
  const id = stringField(context, part["toolCallId"], "toolCallId", false);
  const name = stringField(context, part["toolName"], "toolName", false);
  const input = part["input"];
  const options = part["providerOptions"];
  if (options === undefined && executed === undefined) {
    // The common call: its input checked and measured by one walk, and kept as it is (or its
    // copy, for messages that outlive the call).
    const length = checkedJsonObjectLength(input);
    if (length >= 0) {
      context.inputLength = length;
      const kept =
        context.copyInputs === true ? (copyJson(input) ?? normalizeJson(input, [], [])) : input;
      return toolUseBlock(id, name, kept as JsonObject);
    }
  }
  const fields: AiSdkFields = {};
  let checked: JsonObject = {};
  if (isPlainObject(input)) {
    // A copy where the quick check found something JSON holds otherwise (a property holding
    // `undefined`); the same object, checked, otherwise.
    const json = jsonField(context, input, "input", true);
    if (isPlainObject(json)) checked = json as JsonObject;
  } else if (input === undefined) {
    // No input at all (the part's `input` is `unknown`): it goes back without one.
    fields["noInput"] = true;
  } else {
    // A model's malformed arguments (a string, an array): kept as they were, outside `input`.
    const raw = jsonField(context, input, "input");
    fields["input"] = raw ?? null;
  }
  if (executed === false) fields["providerExecuted"] = false;
  keepOptions(context, options, fields);
  return withExtra({ type: "tool_use", id, name, input: checked }, fields);
}

/** A part's `providerOptions`, read once by the caller, checked, into `fields`. */
function keepOptions(context: PartContext, options: unknown, fields: AiSdkFields): void {
  if (options === undefined) return;
  if (!isPlainObject(options)) {
    fail(context, "providerOptions", "must be an object");
    return;
  }
  const kept = jsonField(context, options, "providerOptions");
  if (kept !== undefined) fields["providerOptions"] = kept;
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
  const type = isPlainObject(part) ? part["type"] : undefined;
  if (!isPlainObject(part) || typeof type !== "string") {
    fail(context, undefined, "must be a tool output part with a type");
    return { type: "opaque", block: {} };
  }
  switch (type) {
    case "text":
      return textPart(context, part) as ToolResultContentBlock;
    case "media": {
      // An image is read as one; other media are carried whole. A part without a media type
      // string is refused, as an image part's is (its type decides how it is read).
      const mediaType = part["mediaType"];
      if (typeof mediaType !== "string") {
        stringField(context, mediaType, "mediaType", false);
        return { type: "opaque", block: {} };
      }
      if (!mediaType.startsWith("image/")) break;
      return imagePart(context, part, type, mediaType);
    }
    case "image-data":
      return imagePart(context, part, type, part["mediaType"]);
    case "image-url":
      return withExtra(
        {
          type: "image",
          source: { type: "url", url: stringField(context, part["url"], "url", false) },
        },
        partFields(context, part, type),
      );
  }
  return opaquePart(context, part);
}

/** An `image-data` part, or a `media` part of an image type, as an image block (`mediaType`: its, as read). */
function imagePart(
  context: PartContext,
  part: Record_,
  type: string,
  mediaType: unknown,
): ToolResultContentBlock {
  return withExtra(
    {
      type: "image",
      source: {
        type: "base64",
        mediaType: stringField(context, mediaType, "mediaType", false),
        data: stringField(context, part["data"], "data"),
      },
    } satisfies ImageBlock,
    partFields(context, part, type),
  );
}

/** The fields a part of `type` (its `type`, as read) keeps: its type and its `providerOptions`. */
function partFields(context: PartContext, part: Record_, type: string): AiSdkFields {
  const fields: AiSdkFields = { part: type };
  keepOptions(context, part["providerOptions"], fields);
  return fields;
}

/**
 * A tool result part of a `tool` message. Each field is read once: what was checked is what is
 * kept (a getter may answer differently the next time).
 */
export function toolResultPart(context: PartContext, part: Record_): ToolResultBlock {
  const toolUseId = stringField(context, part["toolCallId"], "toolCallId", false);
  const toolName = stringField(context, part["toolName"], "toolName", false);
  const output = part["output"];
  const options = part["providerOptions"];
  const isOutput = isPlainObject(output);
  const type = isOutput ? output["type"] : undefined;
  const value = isOutput ? output["value"] : undefined;
  const outputOptions = isOutput ? output["providerOptions"] : undefined;
  // The common case, text in and out: nothing to keep when the call named the same tool.
  if (
    (type === "text" || type === "error-text") &&
    typeof value === "string" &&
    outputOptions === undefined &&
    options === undefined &&
    context.callName?.(toolUseId) === toolName
  ) {
    return toolResultBlock(toolUseId, value, type === "error-text");
  }
  const fields: AiSdkFields = { toolName };
  keepOptions(context, options, fields);
  if (!isOutput || typeof type !== "string" || !OUTPUT_TYPES.has(type)) {
    fail(
      context,
      "output",
      `must be a tool output whose type is one of ${[...OUTPUT_TYPES].join(", ")}`,
    );
    return { type: "tool_result", toolUseId, content: "", isError: false };
  }
  fields["output"] = type;
  const outputContext = child(context, "output");
  if (outputOptions !== undefined) {
    const kept = jsonField(outputContext, outputOptions, "providerOptions");
    if (kept !== undefined) fields["outputProviderOptions"] = kept;
  }
  const isError = type === "error-text" || type === "error-json" || type === "execution-denied";
  let content: ToolResultBlock["content"];
  if (type === "text" || type === "error-text") {
    content = stringField(outputContext, value, "value");
  } else if (type === "json" || type === "error-json") {
    // No value is JSON's null, and comes back as no value.
    if (value === undefined) fields["noValue"] = true;
    const json = jsonField(outputContext, value ?? null, "value") ?? null;
    content = JSON.stringify(json);
    // Only this exact text is the JSON value: a masked or summarized result is text again.
    fields["jsonLength"] = content.length;
  } else if (type === "execution-denied") {
    const reason = output["reason"];
    if (reason === undefined) fields["noReason"] = true;
    content = reason === undefined ? "" : stringField(outputContext, reason, "reason");
  } else if (Array.isArray(value)) {
    content = value.map((item, index) =>
      outputContentPart(child(outputContext, "value", index), item),
    );
  } else {
    fail(outputContext, "value", "must be an array of content parts");
    content = [];
  }
  return withExtra({ type: "tool_result", toolUseId, content, isError }, fields);
}
