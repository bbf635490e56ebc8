import Anthropic from "@anthropic-ai/sdk";
import type {
  MessageCountTokensTool,
  TextBlockParam,
  ThinkingConfigParam,
  ToolChoice,
} from "@anthropic-ai/sdk/resources/messages";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { charsToTokens, type TokenCounter } from "../core/tokens.js";
import {
  type AnthropicMessagesClient,
  AnthropicMessagesClientSchema,
  type AnthropicRequestOptions,
} from "./llm-client.js";
import { ModelNameSchema, SystemParamSchema, ToolsParamSchema } from "./param-schemas.js";
import { clientSecrets, redactSecrets } from "./redact.js";
import { toAnthropicMessages } from "./request.js";

/** Why a count fell back to the local estimate, reported to `onFallback`. */
export interface TokenCountFallback {
  /** The error of the `countTokens` call (the API key scrubbed from it). */
  error: unknown;
  /** The local estimate returned instead. */
  estimate: number;
}

/** Options of {@link AnthropicTokenCounter}. */
export interface AnthropicTokenCounterOptions {
  /** The SDK client. @default new Anthropic() (reads ANTHROPIC_API_KEY) */
  client?: AnthropicMessagesClient;
  /** The model whose tokenizer counts. */
  model: string;
  /** The system prompt the requests carry; counted too. */
  system?: string | TextBlockParam[];
  /** The tools the requests carry; counted too. */
  tools?: MessageCountTokensTool[];
  /** The tool choice the requests carry. */
  toolChoice?: ToolChoice;
  /** The thinking configuration the requests carry. */
  thinking?: ThinkingConfigParam;
  /** SDK request options (timeout, maxRetries, headers). */
  requestOptions?: AnthropicRequestOptions;
  /** Called when the count failed and the local estimate stands in (never the console). */
  onFallback?: (fallback: TokenCountFallback) => void;
}

const isFunction = (value: unknown) => typeof value === "function";

const AnthropicTokenCounterOptionsSchema = z.strictObject({
  client: z.exactOptional(AnthropicMessagesClientSchema),
  model: ModelNameSchema,
  system: z.exactOptional(SystemParamSchema),
  tools: z.exactOptional(ToolsParamSchema),
  toolChoice: z.exactOptional(z.record(z.string(), z.unknown(), { error: "must be an object" })),
  thinking: z.exactOptional(z.record(z.string(), z.unknown(), { error: "must be an object" })),
  requestOptions: z.exactOptional(
    z.record(z.string(), z.unknown(), { error: "must be an object" }),
  ),
  onFallback: z.exactOptional(
    z.custom<(fallback: TokenCountFallback) => void>(isFunction, "must be a function"),
  ),
});

/** Tokens of text sent outside the messages (system, tools): characters over the local ratio. */
function textTokens(text: string): number {
  return charsToTokens(text.length);
}

/**
 * A `TokenCounter` backed by `messages.countTokens`: the exact count of a request with these
 * messages, system prompt and tools. When the call fails it returns the local estimate
 * (messages, system and tools at about four characters a token) and reports the failure to
 * `onFallback`. An empty conversation is estimated locally (the endpoint needs a message).
 *
 * @example
 * const counter = new AnthropicTokenCounter({ client, model, system, tools });
 * const tokens = await counter.countTokens(session.messages);
 */
export class AnthropicTokenCounter implements TokenCounter {
  /** The model whose tokenizer counts. */
  readonly model: string;
  readonly #client: AnthropicMessagesClient;
  readonly #options: AnthropicTokenCounterOptions;
  readonly #fixedEstimate: number;

  /** @throws {ValidationError} when an option is invalid. */
  constructor(options: AnthropicTokenCounterOptions) {
    parseOrThrow(AnthropicTokenCounterOptionsSchema, options, "AnthropicTokenCounterOptions");
    this.model = options.model;
    this.#client = options.client ?? new Anthropic();
    this.#options = options;
    const system = options.system;
    this.#fixedEstimate =
      (system === undefined
        ? 0
        : textTokens(
            typeof system === "string" ? system : system.map((block) => block.text).join(""),
          )) + (options.tools === undefined ? 0 : textTokens(JSON.stringify(options.tools)));
  }

  /** The request's input tokens, or the local estimate when the endpoint fails. */
  async countTokens(messages: readonly Message[]): Promise<number> {
    const params = toAnthropicMessages(messages);
    const estimate = () => estimateTokens(messages) + this.#fixedEstimate;
    if (params.length === 0) return estimate();
    const options = this.#options;
    try {
      const count = await this.#client.messages.countTokens(
        {
          model: this.model,
          messages: params,
          ...(options.system === undefined ? {} : { system: options.system }),
          ...(options.tools === undefined ? {} : { tools: options.tools }),
          ...(options.toolChoice === undefined ? {} : { tool_choice: options.toolChoice }),
          ...(options.thinking === undefined ? {} : { thinking: options.thinking }),
        },
        options.requestOptions,
      );
      const tokens = (count as { input_tokens?: unknown } | undefined)?.input_tokens;
      if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < 0) {
        throw new TypeError(`countTokens returned ${JSON.stringify(tokens)}, not a token count`);
      }
      return tokens;
    } catch (error) {
      const fallback = estimate();
      options.onFallback?.({
        error: redactSecrets(error, clientSecrets(this.#client)),
        estimate: fallback,
      });
      return fallback;
    }
  }
}
