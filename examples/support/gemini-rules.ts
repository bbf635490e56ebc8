/**
 * The Gemini API's rules for a `generateContent` request's `contents`, as the loopback stand-in
 * enforces them, each in the API's words. Where each comes from (D: documented, R: the API's
 * error text as users reported it, I: inferred):
 *
 * 1. `contents` holds at least one content (R: "contents is not specified").
 * 2. A content's role is `user` or `model` (absent reads as `user`) (R: "Please use a valid
 *    role: user, model."); its `parts` are not empty (R: "contents.parts must not be empty"); a
 *    part holds one kind of data (D: "Exactly one field within a Part should be set").
 * 3. User and model alternate (R: "Please ensure that multiturn requests alternate between user
 *    and model.", NousResearch/hermes-agent#55623).
 * 4. A function call turn comes right after a user turn (R: google-gemini/gemini-cli#11814).
 * 5. A function response turn comes right after a function call turn, with as many responses as
 *    calls (R: gemini-cli#17208), each answering one of its calls (I: by id, else by name).
 * 6. Gemini 3 and later: in the current turn (from the last user content with more than function
 *    responses), the first function call of each function call turn carries its
 *    `thoughtSignature` (D: ai.google.dev/gemini-api/docs/thought-signatures, "Strict
 *    validation is enforced on all function calls within the current turn"; R: "Function call
 *    is missing a thought_signature in functionCall parts …, position N").
 * 7. A `thoughtSignature` anywhere is one this server issued, byte for byte, on a part of the
 *    kind it was issued for (R: "Corrupted thought signature."; I: it is decrypted and checked),
 *    or one of the documented dummies that skip the check (D).
 * 8. A Blob (`inlineData`) has `data` and `mimeType`, both strings (D: the SDK's `Blob`, "Required.
 *    The raw bytes of the data." and "Required. The IANA standard MIME type of the source data.";
 *    Vertex AI's Blob marks both `field_behavior = REQUIRED`); a FileData (`fileData`) has a
 *    string `fileUri` (D: ai.google.dev FileData, "Required. URI."). A value of the wrong type is
 *    refused as the API's JSON reader refuses one (R: "Invalid value at
 *    'tools[0].function_declarations[1].parameters.properties[0].value.type'
 *    (type.googleapis.com/google.cloud.aiplatform.v1beta1.Type), \"\"", agno-agi/agno#2649), a
 *    missing one in the field-violation form of rule 2 (I: the API's text for it is not on record).
 */

/** A part as JSON. */
export type WirePart = Record<string, unknown>;
/** A content as JSON. */
export interface WireContent {
  role?: unknown;
  parts?: unknown;
}

/** The signatures the server issued: each with the function name it signed (`undefined`: not a call). */
export type IssuedSignatures = Map<string, { functionName?: string }>;

/** Signatures the API accepts without checking (the thought-signatures guide's FAQ). */
export const DUMMY_SIGNATURES = new Set([
  "context_engineering_is_the_way_to_go",
  "skip_thought_signature_validator",
]);

const DATA_FIELDS = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
  "toolCall",
  "toolResponse",
];

/** Whether a model name is Gemini 3 or later (`gemini-3-flash-preview`, `models/gemini-4-argon`). */
export function enforcesSignatures(model: string): boolean {
  const name = model.slice(model.lastIndexOf("/") + 1);
  if (!name.startsWith("gemini-")) return false;
  const major = Number.parseInt(name.slice("gemini-".length), 10);
  return Number.isFinite(major) && major >= 3;
}

const partsOf = (content: WireContent): WirePart[] =>
  Array.isArray(content.parts) ? (content.parts as WirePart[]) : [];
/** The `functionCall` (or `functionResponse`) objects of a content's parts. */
const dataOf = (content: WireContent | undefined, key: "functionCall" | "functionResponse") =>
  partsOf(content ?? {}).flatMap((part) =>
    typeof part[key] === "object" && part[key] !== null
      ? [part[key] as Record<string, unknown>]
      : [],
  );
const callsOf = (content: WireContent | undefined) => dataOf(content, "functionCall");
const answersOf = (content: WireContent | undefined) => dataOf(content, "functionResponse");
const roleOf = (content: WireContent): unknown => content.role ?? "user";

/** A JSON value as the API's JSON reader quotes it in "Invalid value at …". */
const quoted = (value: unknown) => JSON.stringify(value) ?? String(value);

/** Rule 8: the required string fields of each media part, with their wire name and proto type. */
const MEDIA_FIELDS = [
  {
    key: "inlineData",
    wire: "inline_data",
    proto: "Blob",
    required: [
      { field: "data", wire: "data", type: "TYPE_BYTES" },
      { field: "mimeType", wire: "mime_type", type: "TYPE_STRING" },
    ],
  },
  {
    key: "fileData",
    wire: "file_data",
    proto: "FileData",
    required: [{ field: "fileUri", wire: "file_uri", type: "TYPE_STRING" }],
  },
] as const;

/** Rule 8: a Blob's `data` and `mimeType`, a FileData's `fileUri`. */
function mediaProblem(part: WirePart, at: string): string | undefined {
  for (const { key, wire, proto, required } of MEDIA_FIELDS) {
    const media = part[key];
    if (media === undefined) continue;
    const path = `${at}.${wire}`;
    if (typeof media !== "object" || media === null || Array.isArray(media))
      return `Invalid value at '${path}' (type.googleapis.com/google.ai.generativelanguage.v1beta.${proto}), ${quoted(media)}`;
    for (const { field, wire: name, type } of required) {
      const value = (media as Record<string, unknown>)[field];
      if (value === undefined)
        return `* GenerateContentRequest.${path}.${name}: required field is not set`;
      if (typeof value !== "string")
        return `Invalid value at '${path}.${name}' (${type}), ${quoted(value)}`;
    }
  }
  return undefined;
}

/** Rules 1-2: the shape of each content and part. */
function shapeProblem(contents: readonly WireContent[]): string | undefined {
  if (contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified";
  for (const [index, content] of contents.entries()) {
    if (roleOf(content) !== "user" && roleOf(content) !== "model")
      return "Please use a valid role: user, model.";
    const parts = partsOf(content);
    if (parts.length === 0)
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`;
    for (const [partIndex, part] of parts.entries()) {
      const set = DATA_FIELDS.filter((field) => part[field] !== undefined).length;
      if (set !== 1)
        return `* GenerateContentRequest.contents[${index}].parts[${partIndex}].data: ${set === 0 ? "required oneof field 'data' must have one initialized field" : "only one oneof field 'data' may be set"}`;
      const media = mediaProblem(part, `contents[${index}].parts[${partIndex}]`);
      if (media !== undefined) return media;
    }
  }
  return undefined;
}

/** Rule 5: the responses of a function response turn against the calls before it. */
function answersProblem(calls: Record<string, unknown>[], answers: Record<string, unknown>[]) {
  if (calls.length === 0)
    return "Please ensure that function response turn comes immediately after a function call turn.";
  if (answers.length !== calls.length)
    return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
  const open = [...calls];
  for (const answer of answers) {
    const at = open.findIndex((call) =>
      answer["id"] !== undefined ? call["id"] === answer["id"] : call["name"] === answer["name"],
    );
    if (at === -1)
      return `Function response ${String(answer["id"] ?? answer["name"])} does not match any function call of the function call turn.`;
    open.splice(at, 1);
  }
  return undefined;
}

/** Rules 3-5: alternation, and each function call turn answered in the very next turn. */
function turnProblem(contents: readonly WireContent[]): string | undefined {
  for (const [index, content] of contents.entries()) {
    const before = contents[index - 1];
    if (before !== undefined && roleOf(before) === roleOf(content))
      return "Please ensure that multiturn requests alternate between user and model.";
    if (roleOf(content) === "model" && callsOf(content).length > 0 && before === undefined)
      return "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
    const answers = answersOf(content);
    if (answers.length > 0) {
      const problem = answersProblem(callsOf(before), answers);
      if (problem !== undefined) return problem;
    }
    if (callsOf(content).length > 0 && answersOf(contents[index + 1]).length === 0)
      return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
  }
  return undefined;
}

/** Where the current turn starts: the last user content with more than function responses. */
export function currentTurnStart(contents: readonly WireContent[]): number {
  for (let index = contents.length - 1; index >= 0; index -= 1) {
    const content = contents[index]!;
    if (roleOf(content) === "user" && partsOf(content).some((part) => !part["functionResponse"]))
      return index;
  }
  return 0;
}

/** Rule 6: the current turn's function call turns, each with its first call signed. */
function missingSignature(contents: readonly WireContent[]): string | undefined {
  for (let index = currentTurnStart(contents); index < contents.length; index += 1) {
    const first = partsOf(contents[index]!).find((part) => part["functionCall"] !== undefined);
    if (first === undefined || typeof first["thoughtSignature"] === "string") continue;
    const name = String((first["functionCall"] as Record<string, unknown>)["name"]);
    return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${index}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
  }
  return undefined;
}

/** Rule 7: every signature is one this server issued, on a part of the kind it signed. */
function corruptedSignature(
  contents: readonly WireContent[],
  issued: IssuedSignatures,
): string | undefined {
  for (const content of contents) {
    for (const part of partsOf(content)) {
      const signature = part["thoughtSignature"];
      if (signature === undefined) continue;
      if (typeof signature === "string" && DUMMY_SIGNATURES.has(signature)) continue;
      const signed = typeof signature === "string" ? issued.get(signature) : undefined;
      const call = part["functionCall"] as Record<string, unknown> | undefined;
      if (signed === undefined || signed.functionName !== call?.["name"])
        return "Corrupted thought signature.";
    }
  }
  return undefined;
}

/** The first rule a request's `contents` break, in the API's words; `undefined` when it is accepted. */
export function geminiContentsProblem(
  contents: unknown,
  options: { model: string; issued: IssuedSignatures },
): string | undefined {
  if (contents === undefined || (Array.isArray(contents) && contents.length === 0))
    return "* GenerateContentRequest.contents: contents is not specified";
  if (!Array.isArray(contents)) return "Invalid value at 'contents'";
  const list = contents as WireContent[];
  return (
    shapeProblem(list) ??
    turnProblem(list) ??
    corruptedSignature(list, options.issued) ??
    (enforcesSignatures(options.model) ? missingSignature(list) : undefined)
  );
}
