import type { IncomingMessage, ServerResponse } from "node:http";
import {
  LoopbackApi,
  roughTokens,
  sendJson as send,
} from "../../examples/support/loopback-http.js";

/**
 * A loopback HTTP server that speaks enough of OpenAI's Responses API for the real `openai`
 * SDK (`new OpenAI({ baseURL: server.url, apiKey: "test" })`): `POST /v1/responses` and
 * `POST /v1/responses/compact`. It records every request, answers `responses` from a script,
 * and refuses, with a 400 in the API's words, any input the API refuses. The rules, and where
 * each comes from (D: documented, R: the API's error text as users reported it, I: inferred):
 *
 * 1. Every `function_call` (or `custom_tool_call`) is answered by a later output item with its
 *    `call_id` (R: "No tool output found for function call call_…"; D: function-calling guide,
 *    "append the function_call_output with the same call_id").
 * 2. Every `function_call_output` answers an earlier call with its `call_id` (R: "No tool call
 *    found for function call output with call_id …").
 * 3. A `reasoning` item is followed by the item it was produced with, never last nor followed by
 *    an input message (R: "Item 'rs_…' of type 'reasoning' was provided without its required
 *    following item").
 * 4. An output item this server produced after a reasoning item comes back with that
 *    reasoning item before it (R: "Item 'fc_…' of type 'function_call' was provided without
 *    its required 'reasoning' item: 'rs_…'"; the failure of openai-agents-python#2727).
 * 5. Reasoning and compaction items come back with the `encrypted_content` this server gave
 *    them, byte for byte (D: "opaque … not intended to be human-interpretable"; I: it is
 *    decrypted and checked).
 * 6. A `compaction` item sits between complete items: not while a call awaits its output nor
 *    right after a reasoning item (I: it stands for whole items, as the compact endpoint's
 *    output, "all user messages, followed by a single compaction item", shows (D)).
 * 7. A `compaction_trigger` item is the final input item (D: "Must be the final input item").
 * 8. A `call_id` is answered once (R: "Duplicate function_call_output for call_id '…'. Each
 *    function_call must have exactly one matching function_call_output", as gateways and
 *    agents that reuse per-reply ids such as `terminal:0` across turns reported).
 * 9. An item holds no field the SDK's `parse()` and `stream()` helpers add to a response's
 *    output: `parsed_arguments` on a function call, `parsed` on a message's part (R: "Unknown
 *    parameter: 'input[2].parsed_arguments'.", openai/openai-python#2720; D: the API refuses
 *    unknown parameters).
 *
 * `/responses/compact` answers, as documented, with the input's user messages followed by one
 * compaction item (`encrypted_content` this server can verify), and usage.
 */

/** One request as the server received it. */
export interface RecordedResponsesRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A response item as JSON. */
export type Item = Record<string, unknown>;

/** What the script answers with: output items, and optionally the usage to report. */
export interface ScriptedOutput {
  output: Item[];
  cachedTokens?: number;
  /**
   * `incomplete`: the response stopped at `max_output_tokens` (its output may then be a lone
   * reasoning item). @default "completed"
   */
  status?: "completed" | "incomplete";
}

/** Writes a response's output; `ids` makes ids of a kind (`rs`, `fc`, `msg`, `call`). */
export type ResponsesScript = (
  request: RecordedResponsesRequest,
  ids: (kind: string) => string,
) => ScriptedOutput | Promise<ScriptedOutput>;

/** A model's final answer: a reasoning item, then an assistant message of `text`. */
export function reasonedAnswer(ids: (kind: string) => string, text: string): Item[] {
  return [
    { type: "reasoning", id: ids("rs"), summary: [] },
    {
      type: "message",
      id: ids("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    },
  ];
}

/** A problem the API would refuse the input for. */
export interface InputProblem {
  message: string;
  param: string;
}

/** What the server issued: each opaque item's content, and what reasoning each item needs. */
export interface Issued {
  encrypted: Map<string, string>;
  requiresReasoning: Map<string, string>;
}

const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output"]);
const CALL_TYPES = new Set(["function_call", "custom_tool_call"]);

function isInputMessage(item: Item): boolean {
  return (item["type"] === undefined || item["type"] === "message") && item["role"] !== "assistant";
}

/** Where an item holds a field only the SDK's parsing helpers write (rule 9), or `undefined`. */
function sdkField(item: Item): string | undefined {
  if (Object.hasOwn(item, "parsed_arguments")) return ".parsed_arguments";
  const { content } = item;
  if (!Array.isArray(content)) return undefined;
  const part = content.findIndex(
    (value) => typeof value === "object" && value !== null && Object.hasOwn(value, "parsed"),
  );
  return part === -1 ? undefined : `.content[${part}].parsed`;
}

/** The part types an input message's content may hold (the API's list in its refusal). */
const INPUT_PART_TYPES = new Set([
  "input_text",
  "input_image",
  "output_text",
  "refusal",
  "input_file",
  "computer_screenshot",
  "summary_text",
]);

/**
 * A part of an input message (user, system, developer) of a type the API does not take: the
 * Chat Completions and AI SDK `text` part is refused ("Invalid value: 'text'. Supported values
 * are: …").
 */
function inputPartProblem(item: Item, param: string): InputProblem | undefined {
  const { content } = item;
  if (!Array.isArray(content)) return undefined;
  for (let at = 0; at < content.length; at += 1) {
    const type = (content[at] as Item | null)?.["type"];
    if (INPUT_PART_TYPES.has(String(type))) continue;
    return {
      message: `Invalid value: '${String(type)}'. Supported values are: ${[...INPUT_PART_TYPES].map((each) => `'${each}'`).join(", ")}.`,
      param: `${param}.content[${at}].type`,
    };
  }
  return undefined;
}

/** The first problem of an input, in the API's words, or `undefined` when it is accepted. */
export function responsesInputProblem(input: unknown, issued: Issued): InputProblem | undefined {
  if (typeof input === "string" || input === undefined) return undefined;
  if (!Array.isArray(input)) return { message: "Invalid type for 'input'.", param: "input" };
  const items = input as Item[];
  const pending = new Map<string, number>();
  const answered = new Set<string>();
  const seenReasoning = new Set<string>();
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index]!;
    const param = `input[${index}]`;
    const type = item["type"] ?? "message";
    const unknown = sdkField(item);
    if (unknown !== undefined)
      return { message: `Unknown parameter: '${param}${unknown}'.`, param: `${param}${unknown}` };
    const partProblem = isInputMessage(item) ? inputPartProblem(item, param) : undefined;
    if (partProblem !== undefined) return partProblem;
    if (type === "compaction_trigger" && index !== items.length - 1) {
      return { message: "The compaction_trigger item must be the final input item.", param };
    }
    if (type === "reasoning" || type === "compaction") {
      const expected =
        typeof item["id"] === "string" ? issued.encrypted.get(item["id"]) : undefined;
      if (expected !== undefined && item["encrypted_content"] !== expected)
        return {
          message: `The encrypted content for item ${String(item["id"])} could not be verified.`,
          param,
        };
      const known = [...issued.encrypted.values()].includes(String(item["encrypted_content"]));
      if (type === "compaction" && !known)
        return {
          message: "The encrypted content of the compaction item could not be verified.",
          param,
        };
    }
    if (type === "reasoning") {
      const next = items[index + 1];
      if (
        next === undefined ||
        isInputMessage(next) ||
        OUTPUT_TYPES.has(String(next["type"])) ||
        next["type"] === "compaction"
      )
        return {
          message: `Item '${String(item["id"])}' of type 'reasoning' was provided without its required following item.`,
          param,
        };
      if (typeof item["id"] === "string") seenReasoning.add(item["id"]);
    }
    if (type === "compaction") {
      if (pending.size > 0) {
        const [callId] = pending.keys();
        return { message: `No tool output found for function call ${callId}.`, param };
      }
    }
    const needs =
      typeof item["id"] === "string" ? issued.requiresReasoning.get(item["id"]) : undefined;
    if (needs !== undefined && !seenReasoning.has(needs))
      return {
        message: `Item '${String(item["id"])}' of type '${String(type)}' was provided without its required 'reasoning' item: '${needs}'.`,
        param,
      };
    if (CALL_TYPES.has(String(type))) pending.set(String(item["call_id"]), index);
    if (OUTPUT_TYPES.has(String(type))) {
      const callId = String(item["call_id"]);
      if (answered.has(callId))
        return {
          message: `Duplicate function_call_output for call_id '${callId}'. Each function_call must have exactly one matching function_call_output`,
          param,
        };
      answered.add(callId);
      if (!pending.has(callId))
        return {
          message: `No tool call found for function call output with call_id ${callId}.`,
          param,
        };
      pending.delete(callId);
    }
  }
  for (const [callId, index] of pending)
    return {
      message: `No tool output found for function call ${callId}.`,
      param: `input[${index}]`,
    };
  return undefined;
}

export { roughTokens };

/** The loopback Responses API. */
export class ResponsesApiServer extends LoopbackApi {
  readonly requests: RecordedResponsesRequest[] = [];
  readonly issued: Issued = { encrypted: new Map(), requiresReasoning: new Map() };
  /** Answers `POST /v1/responses`; replace it between requests. */
  script: ResponsesScript;
  /** When set, `/responses/compact` answers with this status (an API error). */
  failCompact: number | undefined;
  /** When set, `/responses/compact` reports this usage instead of its own (a faulty count). */
  compactUsage: Record<string, unknown> | undefined;
  /**
   * When set, a `/responses` request whose input (and instructions) take more tokens than this
   * is refused as the API refuses it: a 400 with code `context_length_exceeded`.
   */
  contextWindow: number | undefined;
  /** Requests refused, with why (the client saw a 400). */
  readonly refusals: InputProblem[] = [];

  private constructor(script: ResponsesScript) {
    super();
    this.script = script;
  }

  /** Starts a server on a free loopback port. */
  static async start(script: ResponsesScript): Promise<ResponsesApiServer> {
    const server = new ResponsesApiServer(script);
    await server.listen((request, body, response) => server.#handle(request, body, response));
    return server;
  }

  /** Issues encrypted content for an opaque item id, as the API would. */
  encrypt(id: string): string {
    const content = `enc:${id}:${"x".repeat(8)}`;
    this.issued.encrypted.set(id, content);
    return content;
  }

  async #handle(
    request: IncomingMessage,
    body: Record<string, unknown>,
    response: ServerResponse,
  ): Promise<void> {
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([key, value]) => [key, String(value)]),
    );
    const recorded = { path: request.url ?? "", headers, body };
    this.requests.push(recorded);
    const problem = responsesInputProblem(body["input"], this.issued);
    if (problem !== undefined) {
      this.refusals.push(problem);
      return send(response, 400, {
        error: {
          message: problem.message,
          type: "invalid_request_error",
          param: problem.param,
          code: null,
        },
      });
    }
    if (recorded.path.startsWith("/v1/responses/compact")) {
      if (this.failCompact !== undefined) {
        return send(response, this.failCompact, {
          error: { message: "The server had an error", type: "server_error" },
        });
      }
      return send(response, 200, this.#compact(body));
    }
    const tokens = roughTokens(body["input"]) + roughTokens(body["instructions"]);
    if (this.contextWindow !== undefined && tokens > this.contextWindow) {
      this.refusals.push({ param: "input", message: "context_length_exceeded" });
      return send(response, 400, {
        error: {
          message: `Your input exceeds the context window of this model (${tokens} > ${this.contextWindow} tokens). Please adjust your input and try again.`,
          type: "invalid_request_error",
          param: "input",
          code: "context_length_exceeded",
        },
      });
    }
    if (recorded.path.startsWith("/v1/responses")) {
      const scripted = await this.script(recorded, (kind) => this.id(kind));
      return send(response, 200, this.#respond(body, scripted));
    }
    send(response, 404, { error: { message: "Not found", type: "invalid_request_error" } });
  }

  /** Registers what the output needs on the way back: encrypted content, reasoning. */
  #register(output: Item[]): void {
    let reasoning: string | undefined;
    for (const item of output) {
      if (item["type"] === "reasoning" && typeof item["id"] === "string") {
        item["encrypted_content"] ??= this.encrypt(item["id"]);
        this.issued.encrypted.set(item["id"], String(item["encrypted_content"]));
        reasoning = item["id"];
      } else if (typeof item["id"] === "string" && reasoning !== undefined) {
        this.issued.requiresReasoning.set(item["id"], reasoning);
      }
    }
  }

  #respond(body: Record<string, unknown>, scripted: ScriptedOutput): Record<string, unknown> {
    this.#register(scripted.output);
    const input = roughTokens(body["input"]) + roughTokens(body["instructions"]);
    const output = roughTokens(scripted.output);
    return {
      id: this.id("resp"),
      object: "response",
      created_at: 1_767_225_600,
      model: body["model"],
      status: scripted.status ?? "completed",
      ...(scripted.status === "incomplete"
        ? { incomplete_details: { reason: "max_output_tokens" } }
        : {}),
      output: scripted.output,
      usage: usage(input, scripted.cachedTokens ?? 0, output),
    };
  }

  #compact(body: Record<string, unknown>): Record<string, unknown> {
    const input = Array.isArray(body["input"]) ? (body["input"] as Item[]) : [];
    const users = input.filter((item) => isInputMessage(item) && item["role"] === "user");
    const id = this.id("cmp");
    const compaction = { type: "compaction", id, encrypted_content: this.encrypt(id) };
    const output = [...users.map((item) => ({ type: "message", ...item })), compaction];
    return {
      id: this.id("resp"),
      object: "response.compaction",
      created_at: 1_767_225_600,
      output,
      usage:
        this.compactUsage ??
        usage(roughTokens(body["input"]), Math.floor(roughTokens(body["input"]) / 2), 200),
    };
  }
}

function usage(input: number, cached: number, output: number): Record<string, unknown> {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: Math.min(cached, input) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}
