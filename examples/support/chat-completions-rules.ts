/**
 * The rules the loopback Chat Completions API (chat-completions-server.ts) enforces on a
 * request's `messages`, and where each comes from (D: documented, R: the API's error text as
 * users reported it, I: inferred):
 *
 * 1. `messages` is a non-empty array (R: "[] is too short - 'messages'").
 * 2. Each message has a known role, and content of the shape its role takes: user parts
 *    `text`, `image_url`, `input_audio`, `file`; assistant parts `text`, `refusal`; tool,
 *    system and developer parts `text` only (D: API reference; R: "Invalid value: 'image_url'.
 *    Supported values are: 'text'."). An assistant message has content unless it has
 *    `tool_calls` (D: "Required unless tool_calls or function_call is specified"; R: "Invalid
 *    value for 'content': expected a string, got null."), or an `audio` (I: the API's own audio
 *    reply has `content: null`, and apps send it back as `{ role: "assistant", audio: { id } }`).
 * 3. After the system and developer messages the first message is the user's (I: the chat
 *    templates of open models behind vLLM and Ollama refuse a conversation that opens
 *    otherwise; OpenAI itself accepts it, so portable requests keep this).
 * 4. Every `tool` message answers a call of the assistant message before it, with only `tool`
 *    messages between (R: "messages with role 'tool' must be a response to a preceeding message
 *    with 'tool_calls'", "'tool_call_id' of 'call_…' not found in 'tool_calls' of previous
 *    message"), each call once (I).
 * 5. Every call is answered before the next message that is not a `tool` message, and by the
 *    end (R: "An assistant message with 'tool_calls' must be followed by tool messages
 *    responding to each 'tool_call_id'. The following tool_call_ids did not have response
 *    messages: …"); tool call ids are unique in the request (I: the pairing is by id).
 * 6. Reasoning fields sent back, by host: `ignored` (OpenAI, vLLM); `rejected` (Groq, R:
 *    "property 'reasoning_content' is unsupported"); `required-for-tool-calls` (DeepSeek's
 *    thinking mode, D: "if the model performed a tool call, the intermediate assistant's
 *    reasoning_content must … be passed back", R: "The `reasoning_content` in the thinking mode
 *    must be passed back to the API."), checked here byte for byte against what was issued.
 * 7. The legacy `function` role (deprecated, still accepted; D: the SDK's
 *    `ChatCompletionFunctionMessageParam`, `content: string | null`, `name: string`) has its
 *    `name`, and string or null content; an assistant message with a legacy `function_call`
 *    may have no content (D: "Required unless tool_calls or function_call is specified").
 * 8. A message's `name` is a string (D: `name?: string` on the developer, system, user and
 *    assistant params, `name: string` on the function one).
 * 9. Each tool call of an assistant message has a `type`, `function` or `custom` (D: the SDK's
 *    `ChatCompletionMessageToolCall` union, "Currently, only `function` is supported" and
 *    "Always `custom`"; R: "Missing required parameter: 'messages[2].tool_calls[0].type'.",
 *    langchain-ai/langchain-azure#35).
 * 10. An `image_url` part's `image_url` is an object with a string `url` and a `detail`, if any,
 *    of `auto`, `low` or `high` (D: `ChatCompletionContentPartImage.ImageURL`).
 * 11. An assistant message's `audio` is `null` or `{ id }`, a string id and nothing else (D: the
 *    SDK's `ChatCompletionAssistantMessageParam.Audio`, "Data about a previous audio
 *    response", of `id` alone; the response's `data`, `expires_at` and `transcript` are not
 *    part of it, and a user's report keeps only the id, community.openai.com/t/1015066). A
 *    field the schema does not have is refused in the API's words for one (R: "Unknown
 *    parameter: 'messages[1].content[1].file.data'.", pydantic/pydantic-ai; I: that the API
 *    refuses rather than ignores the reply's fields here).
 * 12. A message, each of its parts (and the object a part carries: `image_url`, `input_audio`,
 *    `file`), each tool call (and its `function` or `custom`) and a legacy `function_call` hold
 *    only fields the schema has (D: the SDK's `ChatCompletion…Param` types). One it does not
 *    have is refused in the API's words (R: "Unknown parameter: 'messages[1].content[1].file.data'.",
 *    pydantic/pydantic-ai; "Unknown parameter: 'messages[1].tool_calls[0].index'.",
 *    songquanpeng/one-api#1319). At the message's own level OpenAI now lets some through (a
 *    reply's `annotations`, microsoft/agent-framework#2344) where strict hosts refuse them (R:
 *    "Extra inputs are not permitted, field: 'messages[0].custom_fields'",
 *    epam/ai-dial-adapter-openai#527): a portable request keeps to the schema (as rule 3), but
 *    for what OpenAI's own reply holds (`annotations`) and the reasoning fields rule 6 governs.
 * Rules 7-12 are worded as the API words a type or value its schema refuses (R: "Invalid type for
 * 'messages[1].content': expected one of a string or array of objects, but got an object
 * instead.", pydantic/pydantic-ai#2653; "Invalid type for 'messages[0].content': expected a
 * string, but got an array instead.", danny-avila/LibreChat#3111; "Missing required parameter:
 * 'messages[5].content[0].type'.", neuron-core/neuron-ai#76), with the API's current paths
 * (`messages[1].content`; rules 1-6 keep the older `messages.[1].content` they were written with).
 */

/** How a host treats the reasoning fields of an assistant message sent back. */
export type ReasoningRule = "ignored" | "rejected" | "required-for-tool-calls";

/** A problem the API would refuse the request for, in its words. */
export interface RequestProblem {
  message: string;
  param: string | null;
}

/** What the rules need besides the messages: the host's rule, the reasoning it issued. */
export interface RuleState {
  reasoning: ReasoningRule;
  /** The `reasoning_content` issued with each tool call id. */
  issuedReasoning: Map<string, string>;
}

type Json = Record<string, unknown>;

const PART_TYPES: Record<string, string[]> = {
  user: ["text", "image_url", "input_audio", "file"],
  assistant: ["text", "refusal"],
  tool: ["text"],
  system: ["text"],
  developer: ["text"],
  // The legacy role: string or null content, no parts (rule 7).
  function: [],
};
const TOOL_CALL_TYPES = ["function", "custom"];
const IMAGE_DETAILS = ["auto", "low", "high"];
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_details"];

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** How the API names a JSON value's type in its messages ("an integer", "an object", …). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  if (typeof value === "object") return "an object";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

const invalidType = (param: string, expected: string, value: unknown): RequestProblem => ({
  message: `Invalid type for '${param}': expected ${expected}, but got ${kindOf(value)} instead.`,
  param,
});
const missing = (param: string): RequestProblem => ({
  message: `Missing required parameter: '${param}'.`,
  param,
});
const unknownParameter = (param: string): RequestProblem => ({
  message: `Unknown parameter: '${param}'.`,
  param,
});
/** The API's list of values: 'a', 'b', and 'c' ('a' and 'b' for two). */
const valueList = (values: readonly string[]) => {
  const quoted = values.map((value) => `'${value}'`);
  if (quoted.length < 3) return quoted.join(" and ");
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted.at(-1)}`;
};
const invalidValue = (param: string, value: unknown, allowed: readonly string[]) => ({
  message: `Invalid value: '${String(value)}'. Supported values are: ${valueList(allowed)}.`,
  param,
});

/** Rules 7-8: the legacy `function` message's fields, and every message's `name`. */
function nameProblem(message: Json, index: number): RequestProblem | undefined {
  const param = `messages[${index}].name`;
  if (message["role"] === "function") {
    if (message["name"] === undefined) return missing(param);
    const content = message["content"];
    if (content === undefined) return missing(`messages[${index}].content`);
    if (content !== null && typeof content !== "string")
      return invalidType(`messages[${index}].content`, "a string", content);
  }
  if (message["name"] !== undefined && typeof message["name"] !== "string")
    return invalidType(param, "a string", message["name"]);
  return undefined;
}

/** Rule 9: each tool call of an assistant message names its type. */
function toolCallTypeProblem(message: Json, index: number): RequestProblem | undefined {
  if (message["role"] !== "assistant" || !Array.isArray(message["tool_calls"])) return undefined;
  for (const [at, call] of (message["tool_calls"] as unknown[]).entries()) {
    const param = `messages[${index}].tool_calls[${at}].type`;
    const type = isObject(call) ? call["type"] : undefined;
    if (type === undefined) return missing(param);
    if (typeof type !== "string") return invalidType(param, "a string", type);
    if (!TOOL_CALL_TYPES.includes(type)) return invalidValue(param, type, TOOL_CALL_TYPES);
  }
  return undefined;
}

/** Rule 10: an `image_url` part's image, an object with a string `url`. */
function imageProblem(part: Json, param: string): RequestProblem | undefined {
  const image = part["image_url"];
  if (image === undefined) return missing(`${param}.image_url`);
  if (!isObject(image)) return invalidType(`${param}.image_url`, "an object", image);
  if (image["url"] === undefined) return missing(`${param}.image_url.url`);
  if (typeof image["url"] !== "string")
    return invalidType(`${param}.image_url.url`, "a string", image["url"]);
  const detail = image["detail"];
  if (detail !== undefined && !IMAGE_DETAILS.includes(String(detail)))
    return invalidValue(`${param}.image_url.detail`, detail, IMAGE_DETAILS);
  return undefined;
}

/** Rule 12: the fields each message, part and tool call may hold, by role or type. */
const MESSAGE_FIELDS: Record<string, string[]> = {
  user: ["role", "content", "name"],
  system: ["role", "content", "name"],
  developer: ["role", "content", "name"],
  assistant: [
    "role",
    "content",
    "name",
    "tool_calls",
    "function_call",
    "audio",
    "refusal",
    "annotations",
    ...REASONING_FIELDS,
  ],
  tool: ["role", "content", "tool_call_id"],
  function: ["role", "content", "name"],
};
const PART_FIELDS: Record<string, [string[], string?, string[]?]> = {
  text: [["type", "text"]],
  refusal: [["type", "refusal"]],
  image_url: [["type", "image_url"], "image_url", ["url", "detail"]],
  input_audio: [["type", "input_audio"], "input_audio", ["data", "format"]],
  file: [["type", "file"], "file", ["file_data", "file_id", "filename"]],
};
const CALL_FIELDS: Record<string, string[]> = {
  function: ["name", "arguments"],
  custom: ["name", "input"],
};

/** The first field of `value` (an object) not among `known`, as a problem at `param`. */
function unknownField(value: unknown, known: readonly string[], param: string) {
  if (!isObject(value)) return undefined;
  const extra = Object.keys(value).find((key) => !known.includes(key));
  return extra === undefined ? undefined : unknownParameter(`${param}.${extra}`);
}

/** Rule 12: no field the schema does not have, in a message, its parts and its tool calls. */
function unknownFieldProblem(message: Json, index: number): RequestProblem | undefined {
  const param = `messages[${index}]`;
  const problem = unknownField(message, MESSAGE_FIELDS[String(message["role"])] ?? [], param);
  if (problem !== undefined) return problem;
  const content = Array.isArray(message["content"]) ? (message["content"] as unknown[]) : [];
  for (const [at, part] of content.entries()) {
    const [fields, inner, innerFields] = PART_FIELDS[String((part as Json)["type"])] ?? [[]];
    const problem =
      unknownField(part, fields, `${param}.content[${at}]`) ??
      (inner === undefined
        ? undefined
        : unknownField((part as Json)[inner], innerFields!, `${param}.content[${at}].${inner}`));
    if (problem !== undefined) return problem;
  }
  const calls = Array.isArray(message["tool_calls"]) ? (message["tool_calls"] as Json[]) : [];
  for (const [at, call] of calls.entries()) {
    const type = String(call["type"]);
    const problem =
      unknownField(call, ["id", "type", type], `${param}.tool_calls[${at}]`) ??
      unknownField(call[type], CALL_FIELDS[type] ?? [], `${param}.tool_calls[${at}].${type}`);
    if (problem !== undefined) return problem;
  }
  return unknownField(message["function_call"], CALL_FIELDS["function"]!, `${param}.function_call`);
}

/** Rule 11: an assistant message's `audio`, the id of a previous audio response alone. */
function audioProblem(message: Json, index: number): RequestProblem | undefined {
  const audio = message["audio"];
  if (message["role"] !== "assistant" || audio === undefined || audio === null) return undefined;
  const param = `messages[${index}].audio`;
  if (!isObject(audio)) return invalidType(param, "an object", audio);
  const extra = Object.keys(audio).find((key) => key !== "id");
  if (extra !== undefined) return unknownParameter(`${param}.${extra}`);
  if (audio["id"] === undefined) return missing(`${param}.id`);
  return typeof audio["id"] === "string"
    ? undefined
    : invalidType(`${param}.id`, "a string", audio["id"]);
}

function contentProblem(message: Json, index: number): RequestProblem | undefined {
  const { role, content } = message;
  const param = `messages.[${index}].content`;
  // Rule 7: the legacy role's content is checked with its name.
  if (role === "function") return undefined;
  const calls = Array.isArray(message["tool_calls"]) && message["tool_calls"].length > 0;
  const legacyCall = isObject(message["function_call"]);
  if (content === null || content === undefined) {
    if (role === "assistant" && (calls || legacyCall || isObject(message["audio"])))
      return undefined;
    return { message: "Invalid value for 'content': expected a string, got null.", param };
  }
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return { message: `Invalid type for '${param}'.`, param };
  const allowed = PART_TYPES[String(role)] ?? [];
  for (let part = 0; part < content.length; part += 1) {
    const type = isObject(content[part]) ? String((content[part] as Json)["type"]) : "";
    if (!allowed.includes(type)) {
      const list = allowed.map((value) => `'${value}'`).join(", ");
      return {
        message: `Invalid value: '${type}'. Supported values are: ${list}.`,
        param: `${param}.[${part}].type`,
      };
    }
    if (type === "image_url") {
      const problem = imageProblem(content[part] as Json, `messages[${index}].content[${part}]`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function reasoningProblem(
  message: Json,
  index: number,
  state: RuleState,
): RequestProblem | undefined {
  if (message["role"] !== "assistant") return undefined;
  if (state.reasoning === "rejected") {
    const field = REASONING_FIELDS.find((key) => key in message);
    if (field === undefined) return undefined;
    return {
      message: `'messages.${index}' : for 'role:assistant' the following must be satisfied[('messages.${index}' : property '${field}' is unsupported)]`,
      param: null,
    };
  }
  if (state.reasoning !== "required-for-tool-calls" || !Array.isArray(message["tool_calls"]))
    return undefined;
  for (const call of message["tool_calls"] as Json[]) {
    const issued = state.issuedReasoning.get(String(call["id"]));
    if (issued !== undefined && message["reasoning_content"] !== issued) {
      return {
        message: "The `reasoning_content` in the thinking mode must be passed back to the API.",
        param: null,
      };
    }
  }
  return undefined;
}

const missingCalls = (pending: Map<string, number>): RequestProblem | undefined => {
  for (const [, index] of pending) {
    return {
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending.keys()].join(", ")}`,
      param: `messages.[${index}].role`,
    };
  }
  return undefined;
};

/** Rules 4-5 for one message, given the calls still open and those of the last assistant message. */
function pairingProblem(
  message: Json,
  index: number,
  pairing: { pending: Map<string, number>; calls: Set<string> | undefined; seen: Set<string> },
): RequestProblem | undefined {
  if (message["role"] === "tool") {
    const id = String(message["tool_call_id"]);
    if (pairing.pending.delete(id)) return undefined;
    const param = `messages.[${index}].tool_call_id`;
    if (pairing.calls === undefined) {
      return {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        param: `messages.[${index}].role`,
      };
    }
    return pairing.calls.has(id)
      ? {
          message: `Invalid parameter: duplicate tool message for 'tool_call_id' of '${id}'.`,
          param,
        }
      : {
          message: `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
          param,
        };
  }
  const open = missingCalls(pairing.pending);
  if (open !== undefined) return open;
  const calls =
    message["role"] === "assistant" && Array.isArray(message["tool_calls"])
      ? (message["tool_calls"] as Json[])
      : [];
  for (const call of calls) {
    const id = String(call["id"]);
    if (pairing.seen.has(id)) {
      return {
        message: `Invalid parameter: duplicate 'tool_call_id' of '${id}' in 'tool_calls'.`,
        param: `messages.[${index}].tool_calls`,
      };
    }
    pairing.seen.add(id);
  }
  pairing.calls = calls.length > 0 ? new Set(calls.map((call) => String(call["id"]))) : undefined;
  pairing.pending = new Map(calls.map((call) => [String(call["id"]), index]));
  return undefined;
}

/** The first problem of a request's messages, in the API's words, or `undefined` when accepted. */
export function chatMessagesProblem(
  messages: unknown,
  state: RuleState,
): RequestProblem | undefined {
  if (!Array.isArray(messages))
    return { message: "Invalid type for 'messages'.", param: "messages" };
  if (messages.length === 0) return { message: "[] is too short - 'messages'", param: null };
  const pairing = {
    pending: new Map<string, number>(),
    calls: undefined as Set<string> | undefined,
    seen: new Set<string>(),
  };
  let opened = false;
  for (let index = 0; index < messages.length; index += 1) {
    const message: unknown = messages[index];
    if (!isObject(message) || !(String(message["role"]) in PART_TYPES)) {
      return {
        message: `Invalid value for 'messages.[${index}].role'.`,
        param: `messages.[${index}].role`,
      };
    }
    if (!opened && message["role"] !== "system" && message["role"] !== "developer") {
      opened = true;
      if (message["role"] === "assistant") {
        return {
          message: "The first message after the system messages must be a user message.",
          param: `messages.[${index}].role`,
        };
      }
    }
    const problem =
      contentProblem(message, index) ??
      nameProblem(message, index) ??
      toolCallTypeProblem(message, index) ??
      audioProblem(message, index) ??
      reasoningProblem(message, index, state) ??
      unknownFieldProblem(message, index) ??
      pairingProblem(message, index, pairing);
    if (problem !== undefined) return problem;
  }
  return missingCalls(pairing.pending);
}
