import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import * as z from "zod/mini";
import type { Clock } from "../core/message-factory.js";
import {
  CLOCK_SCHEMA,
  methodsSchema,
  NON_EMPTY_STRING_SCHEMA,
  POSITIVE_INT_SCHEMA,
  plainObjectSchema,
  SHARE_SCHEMA,
  TimerMillisecondsSchema,
} from "../core/option-schemas.js";
import type { AnthropicRequestOptions } from "./llm-client.js";
import { ModelNameSchema, SystemParamSchema, ToolsParamSchema } from "./param-schemas.js";
import { type AnthropicRequestDescription, AnthropicRequestDescriptionSchema } from "./request.js";

/** The beta of on-demand compaction: send it on every request that carries the block too. */
export const COMPACTION_BETA = "compact-2026-09-04";

/** The most characters the API takes in `compaction.instructions`. */
export const MAX_COMPACTION_INSTRUCTIONS = 16_384;

/**
 * The part of an SDK client {@link AnthropicCompactor} uses: `beta.messages.create` (`new
 * Anthropic()` fits). Typed loosely so that any SDK version with the beta API will do.
 */
export interface AnthropicCompactionClient {
  beta: { messages: { create(body: never, options?: never): PromiseLike<unknown> } };
  /** Scrubbed from errors, so the key never reaches a message or an event. */
  apiKey?: string | null;
  /** Scrubbed from errors like `apiKey`. */
  authToken?: string | null;
}

/**
 * More parameters for the compaction request (`thinking`, `metadata`, ...). The API rejects
 * `stop_sequences`, `tool_choice` of type `any` or `tool`, `output_config.format` and
 * `context_management` on it, so they are not taken.
 */
export type AnthropicCompactionParams = Omit<
  MessageCreateParamsNonStreaming,
  | "model"
  | "messages"
  | "max_tokens"
  | "system"
  | "tools"
  | "stream"
  | "stop_sequences"
  | "tool_choice"
  | "output_config"
>;

/** Options of {@link AnthropicCompactor}. */
export interface AnthropicCompactorOptions {
  /** The SDK client, e.g. `new Anthropic()`. */
  client: AnthropicCompactionClient;
  /**
   * The agent's own request description (the object its loop passes to `anthropicRequest`):
   * its model, system prompt, tools and thinking are sent unchanged, so the prefix is the one
   * the kept thinking is bound to. Give it instead of `model`, `system` and `tools`.
   * @default none
   */
  request?: AnthropicRequestDescription;
  /**
   * The conversation's model: the summary must be written by a model with preserved thinking
   * for the kept turns' thinking to stay valid. Required unless `request` is given.
   */
  model?: string;
  /** The conversation's `system` prompt, sent unchanged (the kept thinking is bound to it). @default none */
  system?: MessageCreateParamsNonStreaming["system"];
  /** The conversation's `tools`, sent unchanged (the kept thinking is bound to them). @default none */
  tools?: MessageCreateParamsNonStreaming["tools"];
  /** Compact when `contextUsed / contextLimit` is strictly above this; in (0, 1]. @default 0.75 */
  threshold?: number;
  /**
   * Turns at the end kept word for word after the block (a turn is a user request and
   * everything done for it); a whole number ≥ 1. When that would leave the context above
   * `targetUtilization`, the cut moves later, inside those turns, never inside an open tool call.
   * @default 3
   */
  keepRecentTurns?: number;
  /**
   * What the kept part may take of the window, in (0, threshold], when the session passes the
   * context (it does): the cut moves later until the kept part fits. @default 0.5
   */
  targetUtilization?: number;
  /**
   * Replaces the API's summarization prompt (at most 16,384 characters): say what the summary
   * must keep, and not to call tools. A `beforeCompact` hook's instructions are added to it.
   * @default the API's own prompt
   */
  instructions?: string;
  /** `max_tokens` of the compaction request (thinking included). @default 8192 */
  maxTokens?: number;
  /** Milliseconds before the compaction request is abandoned (`timeout`); at most 2^31−1. @default 120000 */
  timeoutMs?: number;
  /** Betas sent besides `compact-2026-09-04` (e.g. `thinking-binding-controls-2026-08-01`). @default none */
  betas?: readonly string[];
  /** More request parameters, such as the conversation's `thinking`. @default none */
  params?: AnthropicCompactionParams;
  /** SDK request options (headers, maxRetries). @default none */
  requestOptions?: AnthropicRequestOptions;
  /** Clock for the block's message `createdAt`. @default the wall clock */
  clock?: Clock;
}

/** The defaults of {@link AnthropicCompactorOptions}. */
export const DEFAULT_ANTHROPIC_COMPACTOR_OPTIONS = Object.freeze({
  threshold: 0.75,
  keepRecentTurns: 3,
  targetUtilization: 0.5,
  maxTokens: 8192,
  timeoutMs: 120_000,
});

const ratio = SHARE_SCHEMA;
const positiveInt = POSITIVE_INT_SCHEMA;

/** Schema of {@link AnthropicCompactorOptions}. */
export const AnthropicCompactorOptionsSchema = z
  .strictObject({
    client: methodsSchema<AnthropicCompactionClient>("an Anthropic client", "beta.messages.create"),
    request: z.exactOptional(AnthropicRequestDescriptionSchema),
    model: z.exactOptional(ModelNameSchema),
    system: z.exactOptional(SystemParamSchema),
    tools: z.exactOptional(ToolsParamSchema),
    threshold: z.exactOptional(ratio),
    keepRecentTurns: z.exactOptional(positiveInt),
    targetUtilization: z.exactOptional(ratio),
    instructions: z.exactOptional(
      z
        .string({ error: "must be a string" })
        .check(z.refine((value) => value.trim() !== "", "must not be blank"))
        .check(
          z.refine(
            (value) => value.length <= MAX_COMPACTION_INSTRUCTIONS,
            `must be at most ${MAX_COMPACTION_INSTRUCTIONS} characters`,
          ),
        ),
    ),
    maxTokens: z.exactOptional(positiveInt),
    timeoutMs: z.exactOptional(TimerMillisecondsSchema),
    betas: z.exactOptional(
      z.array(NON_EMPTY_STRING_SCHEMA, { error: "must be an array of beta names" }),
    ),
    params: z.exactOptional(plainObjectSchema<AnthropicCompactionParams>()),
    requestOptions: z.exactOptional(plainObjectSchema<AnthropicRequestOptions>()),
    clock: z.exactOptional(CLOCK_SCHEMA),
  })
  .check(
    z.superRefine((options, context) => {
      if (options.request === undefined && options.model === undefined) {
        context.addIssue({
          code: "custom",
          path: ["model"],
          message: "is required unless request (the agent's request description) is given",
        });
      }
      for (const field of ["model", "system", "tools"] as const) {
        if (options.request !== undefined && options[field] !== undefined) {
          context.addIssue({
            code: "custom",
            path: [field],
            message: `must not be given with request (the request's ${field} is sent)`,
          });
        }
      }
    }),
  );
