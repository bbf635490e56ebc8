import type {
  BaseChatModel,
  BaseChatModelCallOptions,
  BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { LlmClient, LlmReply, LlmRequest } from "../core/llm-client.js";
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
 * `LLMCompactor` reports them as `llm_error` with the original as `cause`. The summary's
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
