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
 *    value for 'content': expected a string, got null.").
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
};
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_details"];

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function contentProblem(message: Json, index: number): RequestProblem | undefined {
  const { role, content } = message;
  const param = `messages.[${index}].content`;
  const calls = Array.isArray(message["tool_calls"]) && message["tool_calls"].length > 0;
  if (content === null || content === undefined) {
    if (role === "assistant" && calls) return undefined;
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
      reasoningProblem(message, index, state) ??
      pairingProblem(message, index, pairing);
    if (problem !== undefined) return problem;
  }
  return missingCalls(pairing.pending);
}
