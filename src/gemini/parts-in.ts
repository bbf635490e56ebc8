import type { ValidationIssue } from "../core/errors.js";
import { GEMINI_KEY } from "../core/gemini-contents.js";
import type {
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  OpaqueBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from "../core/message.js";
import { normalizeJson } from "../internal/json-value.js";
import { isPlainObject, spreadWith, without } from "../internal/plain-object.js";
import { quickPartBlock } from "./parts-quick.js";

type Path = (string | number)[];

/** Where problems go, the path of the part being read, and how a call without an id is named. */
export interface PartContext {
  issues: ValidationIssue[];
  path: Path;
  /** The id of a `functionCall` that has none. */
  callId: (name: string) => string;
  /** The id of the call a `functionResponse` without an id answers. */
  answerId: (name: string) => string;
}

const isEmpty = (value: JsonObject): boolean => Object.keys(value).length === 0;

/** `block` with the Gemini fields `fields` (left out when there are none). */
export function withGemini<B extends Exclude<ContentBlock, OpaqueBlock>>(
  block: B,
  fields: JsonObject,
): B {
  return isEmpty(fields) ? block : spreadWith(block, { extra: { [GEMINI_KEY]: fields } });
}

function fail(context: PartContext, path: Path, message: string): void {
  context.issues.push({ path: [...context.path, ...path], message });
}

function nonEmptyString(context: PartContext, value: JsonObject, path: Path): string {
  const field = value[path.at(-1) as string];
  if (typeof field === "string" && field !== "") return field;
  fail(context, path, "must be a non-empty string");
  return "";
}

/** `part` copied as JSON (what JSON cannot hold is reported and left out). */
export function copiedPart(context: PartContext, part: unknown): JsonObject {
  const copy = normalizeJson(part, context.path, context.issues);
  return isPlainObject(copy) ? (copy as JsonObject) : {};
}

/** Media the library models as an image: inline image bytes, or an image file by URI. */
function mediaImage(media: JsonValue | undefined): ImageBlock["source"] | undefined {
  if (!isPlainObject(media)) return undefined;
  const { mimeType, data, fileUri, ...rest } = media as JsonObject;
  if (!isEmpty(rest) || typeof mimeType !== "string" || !mimeType.startsWith("image/"))
    return undefined;
  if (typeof data === "string" && fileUri === undefined)
    return { type: "base64", mediaType: mimeType, data };
  if (typeof fileUri === "string" && fileUri !== "" && data === undefined)
    return { type: "url", url: fileUri };
  return undefined;
}

/** An image part (`inlineData` or `fileData` of an image type), or `undefined` for other media. */
function imageOf(part: JsonObject, key: "inlineData" | "fileData"): ImageBlock | undefined {
  const source = mediaImage(part[key]);
  if (source === undefined) return undefined;
  const fields: JsonObject = {};
  const rest = without(part, [key]);
  if (!isEmpty(rest)) fields["part"] = rest;
  if (source.type === "url") fields["mimeType"] = (part[key] as JsonObject)["mimeType"] as string;
  return withGemini({ type: "image", source }, fields);
}

/**
 * An id that is absent, `null` or `""` means none (the API's SDK leaves it out or empty); one of
 * another type is reported (it could not come back as it was).
 */
function checkedNoId(context: PartContext, id: JsonValue | undefined, field: string): void {
  if (id !== undefined && id !== null && id !== "")
    fail(context, [field, "id"], "must be a string");
}

/** `["id"]`, or none when the id is `""` or `null`: carried among the other fields, it comes back. */
const idKey = (value: JsonObject): string[] =>
  value["id"] === "" || value["id"] === null ? [] : ["id"];

function callOf(context: PartContext, part: JsonObject): ToolUseBlock {
  const call = part["functionCall"] as JsonObject;
  const name = nonEmptyString(context, call, ["functionCall", "name"]);
  const fields: JsonObject = {};
  const rest = without(part, ["functionCall"]);
  if (!isEmpty(rest)) fields["part"] = rest;
  const callRest = without(call, [...idKey(call), "name", "args"]);
  if (!isEmpty(callRest)) fields["call"] = callRest;
  let input: JsonObject = {};
  if (call["args"] === undefined) fields["noArgs"] = true;
  else if (isPlainObject(call["args"])) input = call["args"] as JsonObject;
  else fail(context, ["functionCall", "args"], "must be an object");
  let id = call["id"];
  if (typeof id !== "string" || id === "") {
    checkedNoId(context, id, "functionCall");
    id = context.callId(name);
    fields["noId"] = true;
  }
  return withGemini({ type: "tool_use", id, name, input }, fields);
}

/**
 * What a `response` says as text: its `output` or `error` string alone (`plain`: the response
 * is `{ output }` or `{ error }` of that text, nothing else), else its JSON.
 */
export function responseText(response: JsonObject): {
  text: string;
  isError: boolean;
  plain: boolean;
} {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  const value = only === undefined ? undefined : response[only];
  if ((only === "output" || only === "error") && typeof value === "string")
    return { text: value, isError: only === "error", plain: true };
  const isError = Object.hasOwn(response, "error") && !Object.hasOwn(response, "output");
  return { text: JSON.stringify(response), isError, plain: false };
}

function responsePart(part: JsonValue): ToolResultContentBlock {
  const object = isPlainObject(part) ? (part as JsonObject) : {};
  return imageOf(object, "inlineData") ?? imageOf(object, "fileData") ?? opaque(object);
}

const MEDIA_FIELDS = ["inlineData", "fileData"];

/** A function response's part: its `inlineData` and `fileData` objects, of strings ({@link checkMedia}). */
function checkResponseMedia(context: PartContext, part: JsonObject, path: Path): void {
  for (const key of MEDIA_FIELDS)
    if (part[key] !== undefined && !isPlainObject(part[key]))
      fail(context, [...path, key], "must be an object");
  checkMedia(context, part, path);
}

function resultOf(context: PartContext, part: JsonObject): ToolResultBlock {
  const answer = part["functionResponse"] as JsonObject;
  const name = nonEmptyString(context, answer, ["functionResponse", "name"]);
  const fields: JsonObject = { name };
  const rest = without(part, ["functionResponse"]);
  if (!isEmpty(rest)) fields["part"] = rest;
  const { response = {}, parts } = answer;
  if (!isPlainObject(response))
    fail(context, ["functionResponse", "response"], "must be an object");
  const said = responseText(isPlainObject(response) ? (response as JsonObject) : {});
  if (answer["response"] === undefined) fields["noResponse"] = true;
  // Only `{ output }` or `{ error }` of the text is written back as it came without keeping it.
  else if (!said.plain) fields["response"] = response;
  if (parts !== undefined && !Array.isArray(parts))
    fail(context, ["functionResponse", "parts"], "must be an array");
  const many = Array.isArray(parts) && parts.length > 0;
  if (many)
    for (let index = 0; index < parts.length; index += 1) {
      const path = ["functionResponse", "parts", index];
      const media = parts[index];
      if (!isPlainObject(media)) fail(context, path, "must be a part object");
      else checkResponseMedia(context, media as JsonObject, path);
    }
  const modelled = [...idKey(answer), "name", "response", ...(many ? ["parts"] : [])];
  const answerRest = without(answer, modelled);
  if (!isEmpty(answerRest)) fields["fields"] = answerRest;
  let id = answer["id"];
  if (typeof id !== "string" || id === "") {
    checkedNoId(context, id, "functionResponse");
    id = context.answerId(name);
    fields["noId"] = true;
  }
  const content: ToolResultBlock["content"] = many
    ? [{ type: "text", text: said.text }, ...(parts as JsonValue[]).map(responsePart)]
    : said.text;
  return withGemini({ type: "tool_result", toolUseId: id, content, isError: said.isError }, fields);
}

/** The part fields that hold an object when present. */
const OBJECT_FIELDS = [
  "functionCall",
  "functionResponse",
  "inlineData",
  "fileData",
  "executableCode",
  "codeExecutionResult",
  "toolCall",
  "toolResponse",
];

/** The part's data fields: the API's `data` is one of them. */
const DATA_FIELDS = ["text", ...OBJECT_FIELDS];

/**
 * Whether the fields the API types are of their type (`text` and `thoughtSignature` strings,
 * `thought` a boolean, the data fields objects, the strings the API requires in media and code:
 * {@link checkMedia}, `executableCode.code`), the part holds something, and at most one data
 * field (`text` or one of {@link OBJECT_FIELDS}: the API's `data` is one of them); each wrong one
 * reported. Fields it does not know are carried as they are (newer kinds of part), and so is a
 * part of a signature alone (a stream's last chunk may hold one).
 */
function wellTyped(context: PartContext, part: JsonObject): boolean {
  const before = context.issues.length;
  if (isEmpty(part)) fail(context, [], "must hold a field (text, functionCall, inlineData, ...)");
  let data: string | undefined;
  for (const key of DATA_FIELDS) {
    if (part[key] === undefined) continue;
    if (data === undefined) data = key;
    else fail(context, [], `must hold one data field, not ${data} and ${key}`);
    if (key !== "text" && !isPlainObject(part[key])) fail(context, [key], "must be an object");
  }
  for (const key of ["text", "thoughtSignature"])
    if (part[key] !== undefined && typeof part[key] !== "string")
      fail(context, [key], "must be a string");
  if (part["thought"] !== undefined && typeof part["thought"] !== "boolean")
    fail(context, ["thought"], "must be a boolean");
  checkMedia(context, part, []);
  const code = part["executableCode"];
  if (isPlainObject(code) && typeof code["code"] !== "string")
    fail(context, ["executableCode", "code"], "must be a string");
  return context.issues.length === before;
}

/**
 * Reports the media fields of a part (or of a function response's part) the API requires and
 * that are not strings: an `inlineData`'s `data` and `mimeType`, a `fileData`'s `fileUri` (and
 * its `mimeType` when there is one). One that is not an object is left to the caller.
 */
function checkMedia(context: PartContext, part: JsonObject, path: Path): void {
  const inline = part["inlineData"];
  if (isPlainObject(inline)) {
    if (typeof inline["data"] !== "string")
      fail(context, [...path, "inlineData", "data"], "must be a string");
    if (typeof inline["mimeType"] !== "string")
      fail(context, [...path, "inlineData", "mimeType"], "must be a string");
  }
  const file = part["fileData"];
  if (isPlainObject(file)) {
    if (typeof file["fileUri"] !== "string")
      fail(context, [...path, "fileData", "fileUri"], "must be a string");
    if (file["mimeType"] !== undefined && typeof file["mimeType"] !== "string")
      fail(context, [...path, "fileData", "mimeType"], "must be a string");
  }
}

/** A part carried whole, as it came. */
export function opaque(part: JsonObject): OpaqueBlock {
  return { type: "opaque", block: part };
}

/**
 * One Gemini part as our block: text, a function call or response, an image; anything else
 * (thoughts with their signatures, code execution, other media) whole. Copied, never shared
 * with the caller.
 */
export function partBlock(context: PartContext, value: unknown): ContentBlock {
  if (!isPlainObject(value)) {
    fail(context, [], "must be a part object");
    return opaque({});
  }
  return quickPartBlock(value) ?? partBlockInFull(context, value);
}

/** {@link partBlock} of a plain object by the full reading, without the quick one in front. */
export function partBlockInFull(
  context: PartContext,
  value: Record<string, unknown>,
): ContentBlock {
  return partBlockOfCopy(context, copiedPart(context, value));
}

/** {@link partBlockInFull} of the part's copy ({@link copiedPart}). */
export function partBlockOfCopy(context: PartContext, part: JsonObject): ContentBlock {
  if (!wellTyped(context, part)) return opaque(part);
  // A thought (`thought: true`, with its signature if any) is carried whole: Gemini has no rule
  // binding it to what came before, so no compaction edit ever makes it stale or strips it.
  if (part["thought"] === true) return opaque(part);
  if (typeof part["text"] === "string") {
    const rest = without(part, ["text"]);
    return withGemini({ type: "text", text: part["text"] }, isEmpty(rest) ? {} : { part: rest });
  }
  if (isPlainObject(part["functionCall"])) return callOf(context, part);
  if (isPlainObject(part["functionResponse"])) return resultOf(context, part);
  return imageOf(part, "inlineData") ?? imageOf(part, "fileData") ?? opaque(part);
}
