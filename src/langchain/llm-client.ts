import type {
  BaseChatModel,
  BaseChatModelCallOptions,
  BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  assertSummaryFinished,
  type LlmClient,
  type LlmReply,
  type LlmRequest,
  SUMMARY_CALLED_A_TOOL,
  SUMMARY_DECLINED,
} from "../core/llm-client.js";
import {
  falseOr,
  methodsSchema,
  optionsSchema,
  plainObjectSchema,
  STRING_SCHEMA,
} from "../core/option-schemas.js";
import type { CompactionUsage } from "../core/usage.js";
import { toLangChainMessages } from "./messages-out.js";
import { usageFromLangChain } from "./usage.js";

/** The agent's own request, for summaries sent as the conversation (read from the prompt cache). */
export interface LangChainConversationRequest {
  /** The agent's system prompt (`createAgent`'s `systemPrompt`). @default none */
  systemPrompt?: string;
  /** The agent's tools, bound to the model as the agent binds them. @default none */
  tools?: BindToolsInput[];
}

/** Options of {@link LangChainLlmClient}. */
export interface LangChainLlmClientOptions {
  /** The chat model that writes summaries: any LangChain chat model (`ChatAnthropic`, `initChatModel(…)`, …). */
  model: BaseChatModel;
  /**
   * Send each summary as the agent's own request: the conversation as the agent last sent it,
   * after its system prompt and with its tools, and the instruction as the final message, so
   * the provider reads the prefix from its prompt cache (`acceptsConversation`). `false`: a
   * plain transcript request. @default false
   */
  conversation?: false | LangChainConversationRequest;
  /** Call options for every request (`tags`, `metadata`, `timeout`, `callbacks`, …). @default none */
  callOptions?: Partial<BaseChatModelCallOptions>;
}

/** What a model's invoke needs here: messages in, a message out. */
interface Invokable {
  invoke(input: BaseMessage[], options?: Partial<BaseChatModelCallOptions>): Promise<BaseMessage>;
}

/** Schema of {@link LangChainLlmClientOptions}. */
const LangChainLlmClientOptionsSchema = optionsSchema({
  model: methodsSchema<BaseChatModel>("a LangChain chat model", "invoke"),
  conversation: z.exactOptional(
    falseOr<LangChainConversationRequest>(
      optionsSchema({
        systemPrompt: z.exactOptional(STRING_SCHEMA),
        tools: z.exactOptional(
          z.array(z.custom<BindToolsInput>(), { error: "must be an array of tools" }),
        ),
      }),
    ),
  ),
  callOptions: z.exactOptional(plainObjectSchema<Partial<BaseChatModelCallOptions>>()),
}).check(
  z.superRefine((options, context) => {
    const { conversation, model } = options;
    if (conversation === undefined || conversation === false || conversation.tools === undefined)
      return;
    if (typeof model.bindTools !== "function")
      context.addIssue({
        code: "custom",
        path: ["conversation", "tools"],
        message: "needs a model with bindTools",
      });
  }),
);

/** What a reply cut at its token limit is told with. */
const CUT_OFF = "the summary was cut off: raise the model's maxTokens";

/**
 * The stop reasons that leave a summary unfinished, as LangChain's chat models report them in
 * `response_metadata` (each provider's own words), and what to do.
 */
const UNFINISHED_REPLY: Readonly<Record<string, string>> = {
  // Chat Completions and compatible hosts, Ollama (`done_reason`), the Responses API.
  length: CUT_OFF,
  tool_calls: SUMMARY_CALLED_A_TOOL,
  function_call: SUMMARY_CALLED_A_TOOL,
  content_filter: SUMMARY_DECLINED,
  max_output_tokens: CUT_OFF,
  // Anthropic, Bedrock Converse.
  max_tokens: CUT_OFF,
  tool_use: SUMMARY_CALLED_A_TOOL,
  refusal: SUMMARY_DECLINED,
  pause_turn: "the turn paused (a server tool ran long): continue without a summary",
  guardrail_intervened: SUMMARY_DECLINED,
  content_filtered: SUMMARY_DECLINED,
  // Gemini.
  MAX_TOKENS: CUT_OFF,
  MALFORMED_FUNCTION_CALL: SUMMARY_CALLED_A_TOOL,
  UNEXPECTED_TOOL_CALL: SUMMARY_CALLED_A_TOOL,
  SAFETY: SUMMARY_DECLINED,
  RECITATION: SUMMARY_DECLINED,
  BLOCKLIST: SUMMARY_DECLINED,
  PROHIBITED_CONTENT: SUMMARY_DECLINED,
  SPII: SUMMARY_DECLINED,
};

/**
 * Where LangChain's chat models put why a reply stopped: `finish_reason` (`ChatOpenAI`,
 * Mistral, Groq), `stop_reason` (`ChatAnthropic`), `finishReason` (Gemini), `stopReason`
 * (Bedrock Converse), `done_reason` (Ollama).
 */
const STOP_REASON_KEYS = [
  "finish_reason",
  "stop_reason",
  "finishReason",
  "stopReason",
  "done_reason",
];

/**
 * Throws an `llm_error` for a reply that is no whole summary: one that called a tool (its
 * text a preamble to the call), or stopped cut at its token limit or declined, by the stop
 * reason its `response_metadata` reports (an incomplete Responses API reply's
 * `incomplete_details.reason`).
 */
function assertWholeSummary(reply: BaseMessage): void {
  const calls = (reply as { tool_calls?: unknown }).tool_calls;
  if (Array.isArray(calls) && calls.length > 0)
    assertSummaryFinished("the summary reply", "tool_calls", UNFINISHED_REPLY);
  const metadata: unknown = reply.response_metadata;
  if (typeof metadata !== "object" || metadata === null) return;
  const fields = metadata as Record<string, unknown>;
  for (const key of STOP_REASON_KEYS)
    assertSummaryFinished("the summary reply", fields[key], UNFINISHED_REPLY);
  const incomplete = fields["incomplete_details"];
  if (fields["status"] === "incomplete" && typeof incomplete === "object" && incomplete !== null)
    assertSummaryFinished(
      "the summary reply",
      (incomplete as Record<string, unknown>)["reason"],
      UNFINISHED_REPLY,
    );
}

/** A reply's usage as a compaction's cost, when the model reported it. */
function replyUsage(reply: BaseMessage): CompactionUsage | undefined {
  const usage = usageFromLangChain((reply as { usage_metadata?: never }).usage_metadata);
  if (usage === undefined) return undefined;
  return { ...usage, outputTokens: usage.outputTokens ?? 0 };
}

/**
 * An `LlmClient` on any LangChain chat model: each summary is one `invoke` with the
 * summarizer's system prompt and the prompt as a human message, its abort signal passed on;
 * the reply's text and its `usage_metadata` (cache reads and writes included) come back, so a
 * compaction's cost is counted. With `conversation`, it takes the agent's conversation and
 * sends the agent's own request with the instruction appended. Errors are thrown as they are:
 * `LLMCompactor` reports them as `llm_error` with the original as `cause`. A reply that is no
 * whole summary is an `llm_error` too, as with every built-in client: one that called a tool,
 * or stopped at its token limit or declined (the stop reason in its `response_metadata`:
 * `finish_reason` `length`, `stop_reason` `max_tokens`, `finishReason` `MAX_TOKENS`, …). The summary's
 * length is the model's own `maxTokens` setting (LangChain has no per-call limit).
 *
 * @example
 * import { ChatAnthropic } from "@langchain/anthropic";
 * const client = new LangChainLlmClient({ model: new ChatAnthropic({ model: "claude-haiku-5-5" }) });
 * const compactor = new HybridCompactor({ client });
 */
export class LangChainLlmClient implements LlmClient {
  /** Whether summaries are sent as the agent's conversation (`conversation` was given). */
  readonly acceptsConversation: boolean;
  readonly #model: Invokable;
  readonly #options: LangChainLlmClientOptions;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: LangChainLlmClientOptions) {
    this.#options = parseOrThrow(
      LangChainLlmClientOptionsSchema,
      options,
      "LangChainLlmClientOptions",
    ) as LangChainLlmClientOptions;
    const { model, conversation } = this.#options;
    this.acceptsConversation = conversation !== undefined && conversation !== false;
    const tools =
      conversation === undefined || conversation === false ? undefined : conversation.tools;
    this.#model = (tools === undefined ? model : model.bindTools!(tools)) as unknown as Invokable;
  }

  /** Sends the summary request and returns the reply's text and usage. */
  async complete(request: LlmRequest): Promise<string | LlmReply> {
    const messages = this.#messages(request);
    const options = { ...this.#options.callOptions };
    if (request.signal !== undefined) options.signal = request.signal;
    const reply = await this.#model.invoke(messages, options);
    assertWholeSummary(reply);
    const usage = replyUsage(reply);
    return usage === undefined ? reply.text : { text: reply.text, usage };
  }

  #messages(request: LlmRequest): BaseMessage[] {
    const { conversation } = this.#options;
    if (
      request.conversation === undefined ||
      conversation === undefined ||
      conversation === false
    ) {
      const system = request.system === undefined ? [] : [new SystemMessage(request.system)];
      return [...system, new HumanMessage(request.prompt)];
    }
    // The agent's prefix byte for byte; the summarizer's system prompt goes before the instruction.
    const system =
      conversation.systemPrompt === undefined ? [] : [new SystemMessage(conversation.systemPrompt)];
    const instruction =
      request.system === undefined ? request.prompt : `${request.system}\n\n${request.prompt}`;
    return [...system, ...toLangChainMessages(request.conversation), new HumanMessage(instruction)];
  }
}
