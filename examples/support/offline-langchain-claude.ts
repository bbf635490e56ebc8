import { fakeModel } from "@langchain/core/testing";
import { AIMessage, type BaseMessage } from "langchain";
import { toAnthropicMessages } from "../../src/anthropic/request.js";
import { fromLangChainMessages } from "../../src/langchain/messages-in.js";
import { PromptCache } from "../../src/testing/anthropic-rules/prompt-cache.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import {
  type Counters,
  messageResponse,
  requestTokens,
  type StandInMessageReply,
} from "../../src/testing/anthropic-rules/responses.js";
import { judgeThinking } from "../../src/testing/anthropic-rules/thinking.js";

/**
 * A LangChain fake chat model (`fakeModel()` from `@langchain/core/testing`) that answers as a
 * Claude model behind `ChatAnthropic` would: each request it gets (the agent's messages) is put
 * in the Messages API's shape (leading system messages as `system`, the rest through the
 * library's converters) and judged by the Anthropic rules of the library's stand-in: tool
 * pairing and roles, the preserved-thinking prefix check, the context window. A request that
 * breaks one is refused with the API's 400 message (and recorded); one that passes gets a
 * scripted reply with signed thinking, `tool_use` blocks and `tool_calls`, and
 * `usage_metadata` as `ChatAnthropic` reports it (`input_tokens` summing the cache reads and
 * writes of a modelled prompt cache).
 */
export class AnthropicLikeModel {
  /** The chat model to give `createAgent`. */
  readonly model = fakeModel();
  /** The 400s it answered, in order. */
  readonly refusals: string[] = [];
  /** Each request as the API would read it, with its tokens and cache use. */
  readonly requests: { body: Record<string, unknown>; tokens: number; cacheRead: number }[] = [];
  readonly #counters: Counters = { messages: 0, toolCalls: 0 };
  readonly #cache = new PromptCache();
  readonly #window: number;
  readonly #thinking: boolean;

  constructor(options: { contextWindow?: number; thinking?: boolean } = {}) {
    this.#window = options.contextWindow ?? 200_000;
    this.#thinking = options.thinking ?? true;
  }

  /** Queues replies, each a scripted reply or a function of the request's LangChain messages. */
  reply(
    ...replies: (StandInMessageReply | ((messages: BaseMessage[]) => StandInMessageReply))[]
  ): this {
    for (const reply of replies) {
      this.model.respond((messages) =>
        this.#answer(messages, typeof reply === "function" ? reply(messages) : reply),
      );
    }
    return this;
  }

  #body(messages: BaseMessage[]): Record<string, unknown> {
    let start = 0;
    const system: string[] = [];
    while (messages[start]?.type === "system") {
      system.push(messages[start]!.text);
      start += 1;
    }
    return {
      model: "claude-sonnet-5-5",
      max_tokens: 4096,
      ...(system.length === 0 ? {} : { system: system.join("\n") }),
      ...(this.#thinking ? { thinking: { type: "adaptive" } } : {}),
      messages: toAnthropicMessages(fromLangChainMessages(messages.slice(start))),
    };
  }

  #refuse(message: string): Error {
    this.refusals.push(message);
    return Object.assign(new Error(`400 ${message}`), { status: 400 });
  }

  #answer(messages: BaseMessage[], reply: StandInMessageReply): AIMessage | Error {
    const body = this.#body(messages);
    const [problem] = requestProblems(body["messages"]);
    if (problem !== undefined) return this.#refuse(problem);
    const verdict = judgeThinking({ body, betas: [] }, { mode: "enforced" });
    if (!verdict.ok) return this.#refuse(verdict.message);
    const tokens = requestTokens(body);
    if (tokens > this.#window)
      return this.#refuse(`prompt is too long: ${tokens} tokens > ${this.#window} maximum`);
    const cache = this.#cache.use(body, tokens);
    this.requests.push({ body, tokens, cacheRead: cache.read });
    const response = messageResponse(body, verdict, tokens, reply, this.#counters, cache);
    return asAIMessage(response);
  }
}

type Wire = Record<string, unknown>;

/** A Messages API response as `ChatAnthropic` hands it over. */
function asAIMessage(response: Wire): AIMessage {
  const content = response["content"] as Wire[];
  const usage = response["usage"] as Record<string, number>;
  const read = usage["cache_read_input_tokens"] ?? 0;
  const write = usage["cache_creation_input_tokens"] ?? 0;
  const input = (usage["input_tokens"] ?? 0) + read + write;
  return new AIMessage({
    id: response["id"] as string,
    content: content as never,
    tool_calls: content
      .filter((block) => block["type"] === "tool_use")
      .map((block) => ({
        id: block["id"] as string,
        name: block["name"] as string,
        args: block["input"] as Record<string, unknown>,
        type: "tool_call" as const,
      })),
    usage_metadata: {
      input_tokens: input,
      output_tokens: usage["output_tokens"] ?? 0,
      total_tokens: input + (usage["output_tokens"] ?? 0),
      input_token_details: { cache_read: read, cache_creation: write },
    } as never,
    response_metadata: { model_provider: "anthropic", stop_reason: response["stop_reason"] },
  });
}
