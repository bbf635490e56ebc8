import { GEMINI_KEY } from "../core/gemini-contents.js";
import type { ContentBlock, JsonObject } from "../core/message.js";
import { keyed, textBlock, toolResultBlock, toolUseBlock } from "../core/message-shapes.js";
import { copyJson } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { HAS_OWN, isPlainObject } from "../internal/plain-object.js";

/**
 * `partBlockInFull`'s block for the parts a conversation is mostly made of, read without the
 * copy of the whole part that the full reading starts from: a text part (`{ text }`), a function
 * call with its id (`{ functionCall: { id, name, args } }`, the args copied) and a function
 * response with its id whose response is `{ output }` or `{ error }` of a string. `undefined`
 * for anything else, any other field or value among them: the full reading then decides (and
 * names the issues). So it may pass on a part it could read, never read one otherwise.
 * `parts-quick.test.ts` holds it to that.
 */
export function quickPartBlock(part: Record<string, unknown>): ContentBlock | undefined {
  let only: string | undefined;
  for (const key in part) {
    if (only !== undefined || !HAS_OWN.call(part, key)) return undefined;
    only = key;
  }
  const value = only === undefined ? undefined : part[only];
  switch (only) {
    case "text":
      return typeof value === "string" ? textBlock(value) : undefined;
    case "functionCall":
      return quickCall(value);
    case "functionResponse":
      return quickResponse(value);
    default:
      return undefined;
  }
}

/** Whether `value` is a plain object whose own keys are exactly `keys` (in any order). */
function hasExactly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  let count = 0;
  for (const key in value) {
    if (!HAS_OWN.call(value, key) || !keys.includes(key)) return false;
    count += 1;
  }
  return count === keys.length;
}

/** The parts written, each a spread of its shape, every field set (see `core/message-shapes.ts`). */
const WIRE = {
  text: { text: "" },
  call: { functionCall: undefined },
  callFields: { id: "", name: "", args: undefined },
  response: { functionResponse: undefined },
  responseFields: { id: "", name: "", response: undefined },
  error: { error: "" },
  output: { output: "" },
} as const;

/** A function call of exactly `id`, `name` and `args`, each read once (in the walk over its keys). */
function quickCall(call: unknown): ContentBlock | undefined {
  if (!isPlainObject(call)) return undefined;
  let id: unknown;
  let name: unknown;
  let args: unknown;
  let count = 0;
  for (const key in call) {
    if (!HAS_OWN.call(call, key)) return undefined;
    if (key === "id") id = call[key];
    else if (key === "name") name = call[key];
    else if (key === "args") args = call[key];
    else return undefined;
    count += 1;
  }
  if (count !== 3 || !isNonEmptyString(id) || !isNonEmptyString(name) || !isPlainObject(args))
    return undefined;
  const input = copyJson(args);
  return input === undefined ? undefined : toolUseBlock(id, name, input as JsonObject);
}

/** A function response of exactly `id`, `name` and `response`, each read once. */
function quickResponse(answer: unknown): ContentBlock | undefined {
  if (!isPlainObject(answer)) return undefined;
  let id: unknown;
  let name: unknown;
  let response: unknown;
  let count = 0;
  for (const key in answer) {
    if (!HAS_OWN.call(answer, key)) return undefined;
    if (key === "id") id = answer[key];
    else if (key === "name") name = answer[key];
    else if (key === "response") response = answer[key];
    else return undefined;
    count += 1;
  }
  if (count !== 3 || !isNonEmptyString(id) || !isNonEmptyString(name) || !isPlainObject(response))
    return undefined;
  let only: string | undefined;
  for (const key in response) {
    if (only !== undefined || !HAS_OWN.call(response, key)) return undefined;
    only = key;
  }
  const text = only === undefined ? undefined : response[only];
  if ((only !== "output" && only !== "error") || typeof text !== "string") return undefined;
  return toolResultBlock(id, text, only === "error", keyed(GEMINI_KEY, keyed("name", name)));
}

/**
 * The part `partOf` gives for the blocks a conversation is mostly made of, already a copy (as
 * `toGeminiContents` hands parts out), built without the spreads and the copy after them: a text
 * block and a tool use without Gemini fields, a tool result of text whose Gemini fields are at
 * most its function's `name`. `undefined` for anything else: `partOf` then decides. `calls`, the
 * calls before it by id (a result goes without an id when its call came without one).
 */
export function quickPartOf(
  block: ContentBlock,
  calls: Pick<ReadonlyMap<string, ContentBlock>, "get">,
): JsonObject | undefined {
  if (block.type === "opaque") return undefined;
  const fields = block.extra?.[GEMINI_KEY];
  switch (block.type) {
    case "text":
      return fields === undefined ? { ...WIRE.text, text: block.text } : undefined;
    case "tool_use": {
      if (fields !== undefined) return undefined;
      const args = copyJson(block.input);
      return args === undefined
        ? undefined
        : {
            ...WIRE.call,
            functionCall: { ...WIRE.callFields, id: block.id, name: block.name, args },
          };
    }
    case "tool_result":
      return quickResult(block, fields, calls);
    default:
      return undefined;
  }
}

function quickResult(
  block: Extract<ContentBlock, { type: "tool_result" }>,
  fields: unknown,
  calls: Pick<ReadonlyMap<string, ContentBlock>, "get">,
): JsonObject | undefined {
  const { content, toolUseId } = block;
  if (typeof content !== "string") return undefined;
  let name: unknown;
  if (fields !== undefined) {
    if (!hasExactly(fields, ["name"]) || typeof fields["name"] !== "string") return undefined;
    name = fields["name"];
  }
  const call = calls.get(toolUseId);
  if (call !== undefined && call.type === "tool_use") {
    // A call that came without an id: its result goes without one too (the full reading's).
    if (call.extra?.[GEMINI_KEY] !== undefined) return undefined;
    name ??= call.name;
  } else if (call !== undefined) return undefined;
  return {
    ...WIRE.response,
    functionResponse: {
      ...WIRE.responseFields,
      id: toolUseId,
      name: (name ?? toolUseId) as string,
      response: block.isError
        ? { ...WIRE.error, error: content }
        : { ...WIRE.output, output: content },
    },
  };
}
