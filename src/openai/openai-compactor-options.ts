import type {
  CompactedResponse,
  ResponseCompactParams,
} from "openai/resources/responses/responses";
import * as z from "zod/mini";
import {
  KEEP_RECENT_TOOL_USES_SCHEMA,
  KEEP_RECENT_TURNS_SCHEMA,
  THRESHOLD_SCHEMA,
} from "../compactors/config-schemas.js";
import type { Clock } from "../core/message-factory.js";
import {
  CLOCK_SCHEMA,
  methodsSchema,
  NON_EMPTY_STRING_SCHEMA,
  plainObjectSchema,
  STRING_SCHEMA,
  TimerMillisecondsSchema,
} from "../core/option-schemas.js";
import type { OpenAIRequestOptions } from "./llm-client.js";

/** The client shape `OpenAICompactor` needs: `responses.compact`. */
export interface OpenAICompactionClient {
  responses: {
    compact(
      body: ResponseCompactParams,
      options?: OpenAIRequestOptions,
    ): PromiseLike<CompactedResponse>;
  };
}

/** Options of `OpenAICompactor`. */
export interface OpenAICompactorOptions {
  /** The client (an `OpenAI` or `AzureOpenAI`). */
  client: OpenAICompactionClient;
  /** The model that compacts (the one the conversation runs on). */
  model: string;
  /** The request's `instructions` (your system prompt), so the compaction reads as the conversation did. @default none */
  instructions?: string;
  /** Compact when `contextUsed / contextLimit` is strictly above this, in (0, 1]. @default 0.75 */
  threshold?: number;
  /** Turns at the end sent on unchanged after the compaction item. @default 3 */
  keepRecentTurns?: number;
  /**
   * The newest tool uses sent on unchanged, with their outputs: older steps of a long turn are
   * compacted too (one request answered in many steps); `false` compacts whole turns only.
   * Fewer (those of the newest step always) when they would take more of the window than halfway from
   * `targetUtilization` to `threshold`. @default 10
   */
  keepRecentToolUses?: number | false;
  /**
   * What the kept part may take of the window, in (0, threshold], when what the retention
   * options keep would leave the context above `threshold`: the cut then moves later, past
   * the newest tool uses if need be, until the kept part fits. @default 0.5
   */
  targetUtilization?: number;
  /** The compaction request is aborted after this many milliseconds (`timeout`). @default 120000 */
  timeoutMs?: number;
  /** Extra body fields (`prompt_cache_key`, …). @default none */
  params?: Omit<Partial<ResponseCompactParams>, "model" | "input" | "instructions">;
  /** SDK request options. @default none */
  requestOptions?: OpenAIRequestOptions;
  /** Clock for the new messages' `createdAt`. @default the wall clock */
  clock?: Clock;
}

/** Defaults of {@link OpenAICompactorOptions}. */
export const DEFAULT_OPENAI_COMPACTOR_OPTIONS = Object.freeze({
  threshold: 0.75,
  keepRecentTurns: 3,
  keepRecentToolUses: 10,
  targetUtilization: 0.5,
  timeoutMs: 120_000,
});

/** Schema of {@link OpenAICompactorOptions} (`compactorOptions` checks the target against the threshold). */
export const OpenAICompactorOptionsSchema: z.ZodMiniType<OpenAICompactorOptions> = z.strictObject(
  {
    client: methodsSchema<OpenAICompactionClient>("an OpenAI client", "responses.compact"),
    model: NON_EMPTY_STRING_SCHEMA,
    instructions: z.exactOptional(STRING_SCHEMA),
    threshold: z.exactOptional(THRESHOLD_SCHEMA),
    keepRecentTurns: z.exactOptional(KEEP_RECENT_TURNS_SCHEMA),
    keepRecentToolUses: z.exactOptional(KEEP_RECENT_TOOL_USES_SCHEMA),
    targetUtilization: z.exactOptional(THRESHOLD_SCHEMA),
    timeoutMs: z.exactOptional(TimerMillisecondsSchema),
    params: z.exactOptional(plainObjectSchema<OpenAICompactorOptions["params"] & object>()),
    requestOptions: z.exactOptional(plainObjectSchema<OpenAIRequestOptions>()),
    clock: z.exactOptional(CLOCK_SCHEMA),
  },
  { error: "must be an object" },
);
